import ConformCore
import ConformCrypto
import ConformTestSupport
import Foundation
import Testing

@testable import ConformFlowCheck
@testable import ConformTraffic

/// Builds client traces in either SDK dialect.
struct TraceBuilder {
    enum Dialect { case android, ios }
    var dialect: Dialect
    var appCode = "conform-app-code"
    var exchanges: [RecordedExchange] = []
    /// Start time of the first exchange (each later one a second after); 0 leaves times unknown.
    var clock: Double = 0

    init(_ dialect: Dialect, appCode: String = "conform-app-code") {
        self.dialect = dialect
        self.appCode = appCode
    }

    var t: String { dialect == .android ? "true" : "1" }
    var f: String { dialect == .android ? "false" : "0" }

    mutating func add(
        _ method: HTTPMethod, _ url: String, auth: String? = nil, reg: String? = nil, body: String = "",
        status: Int = 200, response: String = "", extra: HTTPFields = [:]
    ) {
        var headers: HTTPFields = [:]
        if let auth { headers["Authorization"] = auth }
        if let reg { headers["pushregistrationid"] = reg }
        for field in extra { headers.append(name: field.name, value: field.value) }
        var m = method
        if dialect == .android, method == .patch {
            m = .post
            headers["X-HTTP-Method-Override"] = "PATCH"
        }
        let request = HTTPRequest(method: m, url: url, headerFields: headers, body: Data(body.utf8))
        let resp = HTTPResponse(status: HTTPStatus(status), body: Data(response.utf8))
        exchanges.append(
            RecordedExchange(
                seq: exchanges.count + 1, flow: FlowKey.derive(request: request, response: resp),
                upstream: url.hasPrefix("/mobile") ? "mobile" : "backend",
                startedAt: Date(timeIntervalSince1970: clock == 0 ? 0 : clock + Double(exchanges.count)),
                durationMs: 1, request: request, response: resp))
    }

    mutating func register(_ id: String) {
        add(
            .post, "/mobile/1/appinstance?" + (dialect == .android ? "ri=true" : "rt=1"), auth: "App \(appCode)",
            body: #"{"pushServiceToken":"tok","pushServiceType":"Firebase"}"#, response: #"{"pushRegId":"\#(id)"}"#)
    }

    mutating func personalize(_ id: String, user: String, force: Bool = false, auth: String? = nil, status: Int = 200) {
        let query = "forceDepersonalize=\(force ? t : f)&keepAsLead=\(f)&setDeviceAsPrimary=\(f)"
        add(
            .post, "/mobile/1/appinstance/\(id)/personalize?\(query)", auth: auth ?? "App \(appCode)", reg: id,
            body: #"{"userIdentity":{"externalUserId":"\#(user)"}}"#, status: status,
            response: #"{"externalUserId":"\#(user)"}"#)
    }

    mutating func depersonalize(_ id: String) {
        add(.post, "/mobile/1/appinstance/\(id)/depersonalize", auth: "App \(appCode)", reg: id)
    }

    mutating func patchUser(_ id: String, auth: String? = nil, reg: Bool = true) {
        add(
            .patch, "/mobile/1/appinstance/\(id)/user" + (dialect == .ios ? "?ri=0&rt=0" : ""),
            auth: auth ?? "App \(appCode)",
            reg: reg ? id : nil, body: #"{"firstName":"Ana"}"#)
    }

    mutating func getUser(_ id: String, auth: String? = nil) {
        add(
            .get, "/mobile/1/appinstance/\(id)/user?" + (dialect == .android ? "ri=true" : "ri=1&rt=0"),
            auth: auth ?? "App \(appCode)", reg: id, response: #"{"instances":[]}"#)
    }

    mutating func sync(_ id: String) {
        add(
            .post, "/mobile/5/messages?platformType=" + (dialect == .android ? "GCM" : "APNS"), auth: "App \(appCode)",
            reg: id, body: "{}")
    }

    mutating func backendPersonalize(
        _ id: String, user: String, auth: String = "App conform-api-key", force: Bool = false
    ) {
        add(
            .post, "/people/2/contactInformation/push/\(id)/personalize" + (force ? "?forceDepersonalize=true" : ""),
            auth: auth,
            body: #"{"identity":{"externalId":"\#(user)"}}"#, extra: ["AppCode": appCode])
    }

    mutating func push(user: String, auth: String = "App conform-api-key") {
        add(
            .post, "/push/2/message/single", auth: auth,
            body: #"{"from":"\#(appCode)","to":{"externalUserId":"\#(user)"},"text":"Hi"}"#, response: #"{"bulks":[]}"#)
    }

    static func jwt(sub: String, appCode: String = "conform-jwt-app-code", exp: Int = 4_102_444_800) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT","kid":"conform-kid"}"#.utf8))
        let claims = Base64URL.encode(
            Array(#"{"sub":"\#(sub)","infobip-api-key":"\#(appCode)","exp":\#(exp)}"#.utf8))
        return "Bearer \(header).\(claims).c2ln"
    }

    func violations(_ configuration: FlowCheckConfiguration = .reference) -> [FlowViolation] {
        FlowChecker.check(exchanges, configuration: configuration)
    }
}

@Suite struct FlowCheckerTests {
    static func conformingTrace(_ dialect: TraceBuilder.Dialect) -> TraceBuilder {
        var b = TraceBuilder(dialect)
        b.register("dev-1")
        b.personalize("dev-1", user: "u1")
        b.patchUser("dev-1")
        b.getUser("dev-1")
        b.sync("dev-1")
        b.personalize("dev-1", user: "u1")  // same user again: idempotent
        b.personalize("dev-1", user: "u2", force: true)  // switch with force
        b.depersonalize("dev-1")
        b.personalize("dev-1", user: "u3")  // after a depersonalize
        b.backendPersonalize("dev-1", user: "u4", force: true)
        b.push(user: "u4")
        b.register("dev-2")
        b.personalize("dev-2", user: "u4")
        return b
    }

    @Test(arguments: [TraceBuilder.Dialect.android, .ios])
    func conformingTracesHaveNoViolations(_ dialect: TraceBuilder.Dialect) {
        #expect(Self.conformingTrace(dialect).violations() == [])
    }

    @Test(arguments: [TraceBuilder.Dialect.android, .ios])
    func conformingJWTTrace(_ dialect: TraceBuilder.Dialect) {
        var b = TraceBuilder(dialect, appCode: "conform-jwt-app-code")
        b.register("j-1")
        b.personalize("j-1", user: "u1", auth: TraceBuilder.jwt(sub: "u1"))
        b.getUser("j-1", auth: TraceBuilder.jwt(sub: "u1"))
        b.patchUser("j-1", auth: TraceBuilder.jwt(sub: "u1"))
        b.depersonalize("j-1")
        #expect(b.violations() == [])
    }

    @Test func conformingRestrictedTraceUsesTheBackend() {
        var b = TraceBuilder(.android, appCode: "conform-restricted-app-code")
        b.register("r-1")
        b.backendPersonalize("r-1", user: "u1", auth: "App conform-restricted-api-key")
        b.getUser("r-1")
        b.sync("r-1")
        #expect(b.violations() == [])
    }

    @Test func userCallBeforeRegistration() {
        var b = TraceBuilder(.android)
        b.personalize("dev-1", user: "u1")
        b.register("dev-1")
        let v = b.violations()
        #expect(v.map(\.rule) == [.registrationFirst])
        #expect(v.first?.seq == 1)
        #expect(v.first?.step == .registration)
        #expect(v.first?.endpoint == "M4")
    }

    @Test(arguments: [TraceBuilder.Dialect.android, .ios])
    func userSwitchWithoutForce(_ dialect: TraceBuilder.Dialect) {
        var b = TraceBuilder(dialect)
        b.register("dev-1")
        b.personalize("dev-1", user: "u1")
        b.personalize("dev-1", user: "u2")
        let v = b.violations()
        #expect(v.map(\.rule) == [.userSwitch])
        #expect(v.first?.seq == 3)
        #expect(v.first?.step == .login)
        #expect(v.first?.description.contains("'u2' on a device personalized to 'u1'") == true)
    }

    @Test func refusedPersonalizeDoesNotSwitchTheUser() {
        var b = TraceBuilder(.android)
        b.register("dev-1")
        b.personalize("dev-1", user: "u1", status: 400)
        b.personalize("dev-1", user: "u2")
        #expect(b.violations() == [])
    }

    @Test func restrictedAppSendsPersonalData() {
        var b = TraceBuilder(.ios, appCode: "conform-restricted-app-code")
        b.register("r-1")
        b.personalize("r-1", user: "u1")
        b.patchUser("r-1")
        let v = b.violations()
        #expect(v.map(\.rule) == [.restrictedPersonalData, .restrictedPersonalData])
        #expect(v.map(\.step) == [.backendOnly, .backendOnly])
        #expect(v.map(\.endpoint) == ["M4", "M8"])
    }

    @Test func jwtModeWithoutBearerOrWithWrongSubject() {
        var b = TraceBuilder(.android, appCode: "conform-jwt-app-code")
        b.register("j-1")
        b.personalize("j-1", user: "u1")  // App auth in JWT mode
        b.personalize("j-1", user: "u1", auth: TraceBuilder.jwt(sub: "someone-else"))
        b.personalize("j-1", user: "u1", auth: "Bearer not-a-jwt")
        let v = b.violations()
        #expect(v.map(\.rule) == [.jwtSubject, .jwtSubject, .jwtSubject])
        #expect(v[1].message.contains("sub 'someone-else' but the externalUserId is 'u1'"))
    }

    @Test func jwtSignatureCheckedWhenAVerifierIsGiven() {
        var b = TraceBuilder(.android, appCode: "conform-jwt-app-code")
        b.register("j-1")
        b.personalize("j-1", user: "u1", auth: TraceBuilder.jwt(sub: "u1"))
        var config = FlowCheckConfiguration.reference
        config.verifyJWTSignature = { _, _ in false }
        #expect(b.violations(config).map(\.rule) == [.jwtSubject])
    }

    @Test func backendCallWithTheApplicationCode() {
        var b = TraceBuilder(.android)
        b.register("dev-1")
        b.backendPersonalize("dev-1", user: "u1", auth: "App conform-app-code")
        b.push(user: "u1", auth: "App conform-app-code")
        b.add(.post, "/push/3/messages", body: "{}")
        let v = b.violations()
        #expect(v.map(\.rule) == [.backendCredentials, .backendCredentials, .backendCredentials])
        #expect(v.map(\.step) == [.hygiene, .hygiene, .hygiene])
    }

    @Test func learnedApplicationCodesCountToo() {
        var b = TraceBuilder(.android, appCode: "redacted-0123456789abcdef")
        b.register("dev-1")
        b.push(user: "u1", auth: "App redacted-0123456789abcdef")
        #expect(b.violations().map(\.rule) == [.backendCredentials])
    }

    @Test(arguments: [TraceBuilder.Dialect.android, .ios])
    func mobileCallWithoutRegistrationHeader(_ dialect: TraceBuilder.Dialect) {
        var b = TraceBuilder(dialect)
        b.register("dev-1")
        b.patchUser("dev-1", reg: false)
        b.add(.post, "/mobile/5/messages?platformType=GCM", auth: "App conform-app-code", body: "{}")
        let v = b.violations()
        #expect(v.map(\.rule) == [.registrationHeader, .registrationHeader])
        #expect(v.map(\.seq) == [2, 3])
    }

    @Test func personalizeWithEmptyIdentity() {
        var b = TraceBuilder(.ios)
        b.register("dev-1")
        b.add(
            .post, "/mobile/1/appinstance/dev-1/personalize?forceDepersonalize=0&keepAsLead=0&setDeviceAsPrimary=0",
            auth: "App conform-app-code", reg: "dev-1", body: #"{"userIdentity":{"phones":[],"externalUserId":""}}"#)
        b.add(
            .post, "/people/2/contactInformation/push/dev-1/personalize", auth: "App conform-api-key",
            body: #"{"attributes":{}}"#, extra: ["AppCode": "conform-app-code"])
        let v = b.violations()
        #expect(v.map(\.rule) == [.personalizeIdentity, .personalizeIdentity])
        #expect(v.map(\.endpoint) == ["M4", "B3"])
    }

    @Test func disabledRulesAndTracesStartingMidSession() {
        var b = TraceBuilder(.android)
        b.personalize("old-1", user: "u1")
        var config = FlowCheckConfiguration.reference
        config.registeredBefore = ["old-1"]
        #expect(b.violations(config) == [])
        config = .reference
        config.disabledRules = [FlowRule.registrationFirst.id]
        #expect(b.violations(config) == [])
    }

    @Test func streamsARecordingFromDisk() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir)
        var b = TraceBuilder(.android)
        b.personalize("dev-1", user: "u1")
        for e in Self.conformingTrace(.android).exchanges + b.exchanges {
            try writer.append(
                upstream: e.upstream, request: e.request, response: e.response, startedAt: e.startedAt, durationMs: 1)
        }
        writer.close()
        var live: [String] = []
        let v = try await FlowChecker.check(try Trace.open(dir), configuration: .reference) {
            live.append($0.rule.id)
        }
        #expect(v.count == 1)
        #expect(v.first?.rule == .userSwitch)
        #expect(live == ["user-switch"])
    }
}

/// The recovery rules (D20): only failures the app could not act on are owed again, and each is settled by the call
/// or the event that settles it.
@Suite struct FlowRecoveryRuleTests {
    func ids(_ b: TraceBuilder) -> [String] { b.violations().map(\.rule.id) }

    func outcome(_ b: TraceBuilder, events: [AppEvent] = []) -> FlowChecker.Outcome {
        FlowChecker.check(b.exchanges.map(TraceRecord.exchange), events: events, configuration: .reference)
    }

    @Test func aRefusedPersonalizeIsAnAnswerNotARetryOwed() {
        var b = TraceBuilder(.android)
        b.register("d")
        b.personalize("d", user: "u", status: 409)
        b.patchUser("d")
        #expect(outcome(b).violations.map(\.rule.id) == [])
        #expect(!outcome(b).exercised.contains(FlowRule.personalizeRetry.id))
    }

    @Test(arguments: [0, 408, 429, 500, 503])
    func aPersonalizeNotTakenIsOwedUntilSentAgain(_ status: Int) {
        var b = TraceBuilder(.ios)
        b.register("d")
        b.personalize("d", user: "u", status: status)
        #expect(outcome(b).violations.map(\.rule.id) == ["personalize-retry"])
        b.personalize("d", user: "u", status: 409)
        b.patchUser("d")
        #expect(outcome(b).violations.map(\.rule.id) == [])
        #expect(outcome(b).exercised.contains(FlowRule.personalizeRetry.id))
    }

    @Test func aPersonalizeFailedEventSettlesIt() {
        var b = TraceBuilder(.android)
        b.register("d")
        b.personalize("d", user: "u", status: 503)
        let reported = AppEvent(seq: 0, kind: .personalizeFailed, at: Date(timeIntervalSince1970: 10), pushRegId: "d")
        #expect(outcome(b, events: [reported]).violations.map(\.rule.id) == [])
    }

    @Test func aDepersonalizeNotTakenIsSaidOnceBeforeTheNextPersonalize() {
        var b = TraceBuilder(.android)
        b.register("d")
        b.personalize("d", user: "u1")
        b.add(.post, "/mobile/1/appinstance/d/depersonalize", auth: "App conform-app-code", reg: "d", status: 502)
        b.personalize("d", user: "u2", force: true)
        b.getUser("d")
        let found = outcome(b).violations
        #expect(found.map(\.rule.id) == ["depersonalize-retry"])
        #expect(found.first?.seq == 4)
        var retried = TraceBuilder(.android)
        retried.register("d")
        retried.personalize("d", user: "u1")
        retried.add(.post, "/mobile/1/appinstance/d/depersonalize", auth: "App conform-app-code", reg: "d", status: 502)
        retried.depersonalize("d")
        retried.personalize("d", user: "u2")
        #expect(outcome(retried).violations.map(\.rule.id) == [])
    }

    @Test func aNewRegistrationAfterNoRegistrationGoesOn() {
        var b = TraceBuilder(.ios)
        b.register("old")
        b.add(
            .get, "/mobile/1/appinstance/old/user?ri=1&rt=0", auth: "App conform-app-code", reg: "old", status: 400,
            response: #"{"requestError":{"serviceException":{"messageId":"NO_REGISTRATION","text":"gone"}}}"#)
        b.register("new")
        b.personalize("new", user: "u")
        #expect(outcome(b).violations.map(\.rule.id) == [])
        #expect(outcome(b).exercised.contains(FlowRule.registrationRecovery.id))
        b.getUser("old")
        b.getUser("old")
        #expect(outcome(b).violations.map(\.rule.id) == ["registration-recovery"])
    }
}
