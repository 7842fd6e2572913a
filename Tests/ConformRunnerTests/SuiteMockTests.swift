import ConformCore
import ConformCrypto
import ConformMobileMessaging
import ConformReport
import ConformRunner
import Foundation
import Testing

/// The runner (client role) against the mock (server role) of the same suites: the two readings of one
/// exchange description must agree.
@Suite struct SuiteMockTests {
    static let suitesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("suites")

    static func bundledSuites() throws -> [Suite] {
        let files = try FileManager.default.contentsOfDirectory(atPath: suitesDirectory.path).filter {
            $0.hasSuffix(".yaml")
        }.sorted()
        return try files.map {
            try SuiteLoader(predefinedNames: ProtocolProfile.mobileMessaging.baseNames).load(
                path: suitesDirectory.appendingPathComponent($0).path)
        }
    }

    @Test(arguments: try bundledSuites().map(\.id))
    func theRunnerConformsToTheMockOfEachBundledSuite(_ id: String) async throws {
        let suite = try #require(try Self.bundledSuites().first { $0.id == id })
        let mock = SuiteMock(suites: [suite], profile: .mobileMessaging)
        let plan = RunPlan(
            suites: [suite], targetDefaults: ProtocolProfile.mobileMessaging.baseURLs(all: ""),
            functions: MobileMessaging.functions)
        let result = await Runner(transport: InProcessTransport(mock)).run(plan)
        let failing = result.steps.filter { $0.verdict != .pass }.map { step in
            "\(step.flow) › \(step.index + 1). \(step.name): \(step.verdict.rawValue) \(step.error ?? "") \(step.failures.flatMap(\.mismatches).map { "\($0.path): expected \($0.expected) got \($0.actual)" })"
        }
        #expect(
            failing.isEmpty,
            "\(failing.joined(separator: "\n"))\nunmatched: \(mock.report().unmatched.map { "\($0.request.method) \($0.request.target) closest \($0.step) \($0.mismatches.map { "\($0.path): \($0.expected) vs \($0.actual)" })" })"
        )
        #expect(mock.report().complete)
    }
}

@Suite struct SuiteMockBehaviourTests {
    let suite: Suite

    init() throws {
        suite = try SuiteLoader(predefinedNames: ProtocolProfile.mobileMessaging.baseNames).load(
            bytes: Array(
                """
                suite: mock
                title: a registration and a personalize
                vars:
                  appCode: conform-app-code
                  user: "user-{{ uuid }}"
                steps:
                  - name: register
                    request:
                      method: POST
                      url: "{{ mobile }}/mobile/1/appinstance"
                      headers: {Authorization: "App {{ appCode }}"}
                      json: {pushServiceToken: "fcm-{{ uuid }}"}
                    expect: {status: 200, json: {pushRegId: {$type: string}, regEnabled: true}}
                    capture: {pushRegId: $.pushRegId}
                  - name: personalize
                    request:
                      method: POST
                      url: "{{ mobile }}/mobile/1/appinstance/{{ pushRegId }}/personalize"
                      query: {forceDepersonalize: "false"}
                      json: {userIdentity: {externalUserId: "{{ user }}"}}
                    expect: {status: 200, json: {externalUserId: "{{ user }}"}}
                """.utf8), file: "mock.yaml")
    }

    @Test func mintsWhatTheSuiteCapturesAndBindsWhatTheClientChooses() throws {
        let mock = SuiteMock(suites: [suite], profile: .mobileMessaging)
        let register = mock.handle(
            HTTPRequest(
                method: .post, url: "/mobile/1/appinstance", headerFields: ["Authorization": "App conform-app-code"],
                body: Data(#"{"pushServiceToken":"fcm-anything"}"#.utf8)))
        #expect(register.status == 200)
        let json = try JSONValue.parse(register.body)
        let id = try #require(json["pushRegId"]?.stringValue)
        #expect(json["regEnabled"] == true)
        let personalize = mock.handle(
            HTTPRequest(
                method: .post, url: "/mobile/1/appinstance/\(id)/personalize?forceDepersonalize=false",
                body: Data(#"{"userIdentity":{"externalUserId":"ana-42"}}"#.utf8)))
        #expect(personalize.status == 200)
        #expect(try JSONValue.parse(personalize.body)["externalUserId"] == "ana-42")
        #expect(mock.report().complete)
        #expect(mock.report().matched.map(\.step) == ["1. register", "2. personalize"])
    }

    @Test func aRequestNoStepAcceptsGetsTheClosestStepAndWhy() throws {
        let mock = SuiteMock(suites: [suite], profile: .mobileMessaging)
        let wrong = mock.handle(
            HTTPRequest(
                method: .post, url: "/mobile/1/appinstance", headerFields: ["Authorization": "App someone-else"],
                body: Data(#"{"pushServiceToken":"t"}"#.utf8)))
        #expect(wrong.status == 404)
        let text =
            try JSONValue.parse(wrong.body)[path: JSONPath(parsing: "$.requestError.serviceException.text")!]?
            .stringValue ?? ""
        #expect(
            text.contains(
                "Closest: mock › main › 1. register (mock.yaml:7:5): header Authorization: expected App conform-app-code, got App someone-else"
            ))
        let report = mock.report()
        #expect(report.unmatched.count == 1)
        #expect(report.pending.count == 2)
        #expect(!report.complete)
    }

    @Test func theAndroidDialectMatchesAPatchDescribedEitherWay() {
        var binder = Binder(scope: TemplateScope(values: ["mobile": "", "id": "r1"]), free: [])
        let spec = RequestSpec(
            method: .text("PATCH"), url: .string(try! Template(parsing: "{{ mobile }}/mobile/1/appinstance/{{ id }}")))
        let android = HTTPRequest(
            method: .post, url: "/mobile/1/appinstance/r1", headerFields: ["X-HTTP-Method-Override": "PATCH"])
        #expect(binder.mismatches(spec, android).isEmpty)
        #expect(
            binder.mismatches(spec, HTTPRequest(method: .patch, url: "/mobile/1/appinstance/r2")).map(\.path) == [
                "path"
            ])
    }

    @Test func freeNamesBindOnceThenMustRepeat() throws {
        var binder = Binder(scope: TemplateScope(), free: ["user"])
        let m = MatchSpec.literal(.string(try Template(parsing: "user-{{ user }}")))
        #expect(binder.mismatches(m, "user-ana", at: "$", text: false).isEmpty)
        #expect(binder.scope["user"] == "ana")
        #expect(binder.mismatches(m, "user-ana", at: "$", text: false).isEmpty)
        #expect(binder.mismatches(m, "user-ivo", at: "$", text: false).count == 1)
        // A generator call stands for any text.
        #expect(
            binder.mismatches(
                .literal(.string(try Template(parsing: "fcm-{{ uuid }}"))), "fcm-123", at: "$", text: false
            ).isEmpty)
    }

    @Test func aFreeNameBindsTextOfSeveralLinesAndRegexCharactersStayLiteral() throws {
        var binder = Binder(scope: TemplateScope(), free: ["note"])
        let m = MatchSpec.literal(.string(try Template(parsing: "(a+b)? {{ note }}.")))
        #expect(binder.mismatches(m, "(a+b)? first line\nsecond line.", at: "$", text: false).isEmpty)
        #expect(binder.scope["note"] == "first line\nsecond line")
        #expect(binder.mismatches(m, "aab first line\nsecond line.", at: "$", text: false).count == 1)
    }
}

@Suite struct SuiteMockAmbiguityTests {
    @Test func flowsThatStartAlikeAreToldApartWhenTheyDiverge() throws {
        let suite = try SuiteLoader(predefinedNames: ProtocolProfile.mobileMessaging.baseNames).load(
            bytes: Array(
                """
                suite: twins
                title: two devices register alike, then do different things
                flows:
                  first:
                    - name: register
                      request: {method: POST, url: "{{ mobile }}/reg"}
                      expect: {json: {id: {$type: string}}}
                      capture: {id: $.id}
                    - name: read
                      request: {url: "{{ mobile }}/reg/{{ id }}"}
                      expect: {json: {who: first}}
                  second:
                    - name: register
                      request: {method: POST, url: "{{ mobile }}/reg"}
                      expect: {json: {id: {$type: string}}}
                      capture: {id: $.id}
                    - name: delete
                      request: {method: DELETE, url: "{{ mobile }}/reg/{{ id }}"}
                      expect: {json: {who: second}}
                """.utf8), file: "twins.yaml")
        let mock = SuiteMock(suites: [suite], profile: .mobileMessaging)
        let a = try JSONValue.parse(mock.handle(HTTPRequest(method: .post, url: "/reg")).body)["id"]?.stringValue ?? ""
        let b = try JSONValue.parse(mock.handle(HTTPRequest(method: .post, url: "/reg")).body)["id"]?.stringValue ?? ""
        // The client that got the first id turns out to be the second flow.
        let deleted = mock.handle(HTTPRequest(method: .delete, url: "/reg/\(a)"))
        #expect(try JSONValue.parse(deleted.body)["who"] == "second")
        let read = mock.handle(HTTPRequest(method: .get, url: "/reg/\(b)"))
        #expect(try JSONValue.parse(read.body)["who"] == "first")
        #expect(mock.report().complete)
    }
}

@Suite struct JWTRecognitionTests {
    static let secret = "636f6e666f726d2d6a77742d7365637265742d6b65792d3031"
    static let other = "00112233445566778899aabbccddeeff"

    func token(sub: String, secret: String, ttl: Int = 3600) throws -> String {
        try MobileMessaging.jwt.call(
            [], ["sub": .string(sub), "secret": .string(secret), "kid": "k", "app": "a", "ttl": .int(ttl)]
        ).text
    }

    func binder() -> Binder {
        var scope = TemplateScope(values: ["secret": .string(Self.secret)], functions: MobileMessaging.functions)
        scope.functions.merge(TemplateScope.builtinFunctions) { a, _ in a }
        return Binder(scope: scope, free: ["user"])
    }

    @Test func aSignedTokenIsRecognisedByItsKeySubjectAndExpiry() throws {
        let template = try Template(parsing: "Bearer {{ jwt sub=user secret=secret kid='k' app='a' }}")
        var b = binder()
        let ana = b.bind(template, to: "Bearer " + (try token(sub: "ana", secret: Self.secret)))
        #expect(ana)
        #expect(b.scope["user"] == "ana")
        // Once bound, the subject must repeat.
        let ivo = b.bind(template, to: "Bearer " + (try token(sub: "ivo", secret: Self.secret)))
        #expect(!ivo)
        var c = binder()
        let otherKey = c.bind(template, to: "Bearer " + (try token(sub: "ana", secret: Self.other)))
        #expect(!otherKey)
        let expiredForLive = c.bind(template, to: "Bearer " + (try token(sub: "ana", secret: Self.secret, ttl: -60)))
        #expect(!expiredForLive)
        let expired = try Template(parsing: "Bearer {{ jwt sub=user secret=secret kid='k' app='a' ttl=-120 }}")
        let expiredForExpired = c.bind(expired, to: "Bearer " + (try token(sub: "ana", secret: Self.secret, ttl: -60)))
        #expect(expiredForExpired)
        let garbage = c.bind(template, to: "Bearer not-a-token")
        #expect(!garbage)
    }
}

@Suite struct JWTTimeToLiveTests {
    func call(ttl: JSONValue) throws(TemplateError) -> JSONValue {
        try MobileMessaging.jwt.call([], ["sub": "ana", "secret": "00112233", "ttl": ttl])
    }

    @Test(arguments: [
        JSONValue.int(Int.max), .int(Int.min), .int(315_360_001), .string("99999999999999999999"),
        .string("-99999999999999999999"), .double(1e300), .double(.infinity), .double(1.5), .string("soon"),
        .string(""),
    ])
    func outOfRangeTimeToLiveIsAnErrorNotADefault(_ ttl: JSONValue) {
        #expect(throws: TemplateError.self) { try call(ttl: ttl) }
        do {
            _ = try call(ttl: ttl)
        } catch {
            #expect(error.message.hasPrefix("jwt ttl must be a whole number of seconds from -315360000 to 315360000"))
        }
    }

    @Test func timeToLiveInRangeSetsTheExpiry() throws {
        for (ttl, expected) in [(JSONValue.int(-60), -60), (.string("120"), 120), (.double(600), 600)] {
            let token = try call(ttl: ttl).text
            guard case .success(let decoded) = JWT.decode(token) else {
                Issue.record("not a JWT: \(token)")
                continue
            }
            let claims = try JSONValue.parse(decoded.claims)
            let iat = claims["iat"]?.numberValue ?? 0
            #expect(claims["exp"]?.numberValue == iat + Double(expected))
        }
    }
}
