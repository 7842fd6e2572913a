import ConformCore
import ConformDiagnostics
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
            try SuiteLoader(profile: .mobileMessaging).load(
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
        suite = try SuiteLoader(profile: .mobileMessaging).load(
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
        // The result places the refused request at its closest step, from the entry's own file and mark.
        let unplaced = try #require(mock.result(target: "http://127.0.0.1:1", duration: 0).suites.last?.steps.first)
        #expect(unplaced.place == .source(SourceMark(line: 7, column: 5)) && unplaced.location == "mock.yaml:7:5")
        // With no step pending, a request is placed nowhere in a file: the target alone, never `:0:0`.
        let empty = SuiteMock(suites: [], profile: .mobileMessaging)
        #expect(empty.handle(HTTPRequest(method: .get, url: "/nothing/here")).status == 404)
        let nowhere = try #require(empty.result(target: "http://127.0.0.1:1", duration: 0).suites.last?.steps.last)
        #expect(nowhere.place == .none && nowhere.location == "http://127.0.0.1:1", "\(nowhere.location)")
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
        let suite = try SuiteLoader(profile: .mobileMessaging).load(
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
