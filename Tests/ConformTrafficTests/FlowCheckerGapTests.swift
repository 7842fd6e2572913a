import ConformCore
import ConformCrypto
import ConformMobileMessaging
import Foundation
import Testing

@testable import ConformFlowCheck
@testable import ConformTraffic

/// Causal order, and what `user-switch`, `jwt-subject`, `restricted-personal-data`, `backend-credentials` and
/// `primary-push` check beyond the basics.
@Suite struct FlowCheckerGapTests {
    // MARK: causal order

    /// A registration of the reference that took 500 ms, and a user call starting `offset` ms after it started.
    static func overlapping(offset: Double) async throws -> [RecordedExchange] {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        var exchanges = s.exchanges
        let t0 = Date(timeIntervalSince1970: 1_767_600_000)
        exchanges[0].startedAt = t0
        exchanges[0].durationMs = 500
        exchanges[1].startedAt = t0.addingTimeInterval(offset / 1000)
        return exchanges
    }

    @Test func aUserCallBeforeTheRegistrationResponseCompleted() async throws {
        let v = FlowChecker.check(try await Self.overlapping(offset: 100), configuration: .reference)
        #expect(v.map(\.rule) == [.registrationFirst])
        #expect(
            v.first?.message.hasSuffix(
                "started 400 ms before the response of the registration that issued it completed") == true)
        #expect(FlowChecker.check(try await Self.overlapping(offset: 600), configuration: .reference) == [])
        #expect(
            FlowChecker.check(try await Self.overlapping(offset: 500), configuration: .reference) == [],
            "right at completion is after it")
    }

    /// Timestamps are kept to the millisecond, so a gap of one millisecond or less is not judged; the gap is measured
    /// to the microsecond, so the clock's floating point never turns exactly one millisecond into a violation (at
    /// these instants a `Date` made 1 ms later reads as 1.0002 ms later).
    @Test(arguments: [1_767_000_745.779, 1_767_600_000, 1_767_000_000.123, 1_767_123_456.001])
    func aGapOfExactlyTheTimestampsMillisecondIsNotJudged(_ start: Double) {
        var exchange = RecordedExchange(
            seq: 2, flow: "d", upstream: "mobile", startedAt: Date(timeIntervalSince1970: start), durationMs: 1,
            request: HTTPRequest(method: .get, url: "/mobile/1/appinstance/d/user"), response: .json(200, [:]))
        let registered = Date(timeIntervalSince1970: start).addingTimeInterval(1.0 / 1000)
        #expect(FlowChecker.millisecondsEarly(exchange, before: registered) == nil)
        exchange.startedAt = Date(timeIntervalSince1970: start).addingTimeInterval(-1.0 / 1000)
        #expect(FlowChecker.millisecondsEarly(exchange, before: registered) == 2)
    }

    @Test func harEntriesListedOutOfOrderAreCheckedInStartOrder() async throws {
        let exchanges = try await Self.overlapping(offset: 600)
        let har = HAR.export(exchanges.reversed())
        let imported = try importedHAR(har)
        #expect(
            FlowChecker.check(imported, configuration: .reference).map(\.rule) == [.registrationFirst],
            "file order alone misleads")
        let document = try HARDocument(har)
        #expect(
            FlowChecker.check(try document.records(order: document.startOrder).all(), configuration: .reference)
                .violations == [])
    }

    @Test func harDurationsComeFromTimeOrTimings() {
        #expect(HAR.entryDuration(["time": 12.5]) == 12.5)
        #expect(
            HAR.entryDuration(["timings": ["blocked": -1, "dns": 2, "connect": 10, "ssl": 8, "send": 1, "wait": 30]])
                == 43)
        #expect(HAR.entryDuration(["time": -3]) == 0)
        #expect(HAR.entryDuration([:]) == 0)
    }

    // MARK: user-switch

    @Test func switchByPhoneOrEmailOfAnotherPerson() async throws {
        for identity in [#"{"phones":[{"number":"447700900123"}]}"#, #"{"emails":[{"address":"Ana@Example.org"}]}"#] {
            var s = ReferenceSession()
            let a = try await s.register()
            let b = try await s.register()
            try await s.personalize(
                a,
                identity:
                    #"{"externalUserId":"ana","phones":[{"number":"447700900123"}],"emails":[{"address":"ana@example.org"}]}"#
            )
            try await s.personalize(b, user: "ivo")
            try await s.personalize(b, identity: identity)
            let v = s.check().violations
            #expect(v.map(\.rule) == [.userSwitch])
            #expect(
                v.first?.message.hasPrefix(
                    "personalize to 'ana' (by its phone or email) on a device personalized to 'ivo'") == true)
        }
        // A phone the trace never saw owned by anyone proves nothing.
        var s = ReferenceSession()
        let b = try await s.register()
        try await s.personalize(b, user: "ivo")
        try await s.personalize(b, identity: #"{"phones":[{"number":"447700900999"}]}"#)
        #expect(s.check().violations == [])
    }

    @Test func repersonalizeToAnotherUserCannotForce() {
        var b = TraceBuilder(.android)
        b.register("dev-1")
        b.personalize("dev-1", user: "u1")
        b.add(
            .post, "/mobile/1/appinstance/dev-1/repersonalize", auth: "App conform-app-code", reg: "dev-1",
            body: #"{"userIdentity":{"externalUserId":"u2"}}"#, status: 400)
        b.add(
            .post, "/mobile/1/appinstance/dev-1/repersonalize", auth: "App conform-app-code", reg: "dev-1",
            body: #"{"userIdentity":{"externalUserId":"u1"}}"#)
        let v = b.violations()
        #expect(v.map(\.rule) == [.userSwitch])
        #expect(v.first?.seq == 3)
    }

    @Test func patchUserChangingTheExternalUserId() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        try await s.patchUser(id, #"{"externalUserId":"ana","firstName":"Ana"}"#)
        try await s.patchUser(id, #"{"externalUserId":"ivo"}"#)
        let v = s.check().violations
        #expect(v.map(\.rule) == [.userSwitch])
        #expect(v.first?.seq == 4)
        #expect(v.first?.message.hasPrefix("PATCH user changes externalUserId from 'ana' to 'ivo'") == true)
    }

    // MARK: jwt-subject

    @Test func jwtExpiryIsJudgedAtTheExchangesTime() {
        var b = TraceBuilder(.android, appCode: "conform-jwt-app-code")
        b.clock = 1_767_600_000
        b.register("j-1")
        b.personalize("j-1", user: "u1", auth: TraceBuilder.jwt(sub: "u1", exp: 1_767_600_060))  // valid then
        b.personalize("j-1", user: "u1", auth: TraceBuilder.jwt(sub: "u1", exp: 1_767_600_001))  // expired 1 s before
        let v = b.violations()
        #expect(v.map(\.rule) == [.jwtSubject])
        #expect(v.first?.seq == 3)
        #expect(v.first?.message.contains("expired at 2026-01-05T08:00:01.000Z, before the call at") == true)
    }

    @Test func jwtForAnotherApplicationOrWithoutClaims() {
        var b = TraceBuilder(.ios, appCode: "conform-jwt-app-code")
        b.register("j-1")
        b.personalize("j-1", user: "u1", auth: TraceBuilder.jwt(sub: "u1", appCode: "conform-app-code"))
        let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"sub":"u1"}"#.utf8))
        b.personalize("j-1", user: "u1", auth: "Bearer \(header).\(claims).c2ln")
        let v = b.violations()
        #expect(v.map(\.rule) == [.jwtSubject, .jwtSubject, .jwtSubject])
        #expect(
            v.map(\.message) == [
                "M4 carries a JWT for application 'conform-app-code' but the app's application code is 'conform-jwt-app-code'",
                "M4 carries a JWT without the `infobip-api-key` claim (the application code)",
                "M4 carries a JWT without an `exp` claim",
            ])
    }

    @Test func bearerWhereTheMobileAPIWantsTheApplicationCode() {
        var b = TraceBuilder(.android, appCode: "conform-jwt-app-code")
        b.register("j-1")
        b.personalize("j-1", user: "u1", auth: TraceBuilder.jwt(sub: "u1"))
        b.add(
            .post, "/mobile/1/appinstance/j-1/depersonalize", auth: TraceBuilder.jwt(sub: "u1"), reg: "j-1")
        b.add(
            .post, "/mobile/5/messages?platformType=GCM", auth: TraceBuilder.jwt(sub: "u1"), reg: "j-1", body: "{}")
        let v = b.violations()
        #expect(v.map(\.rule) == [.jwtSubject, .jwtSubject])
        #expect(v.map(\.endpoint) == ["M6", "M14"])
    }

    // MARK: restricted-personal-data, backend-credentials

    @Test func accessRestrictedApplicationsDoNotReadTheUser() {
        var b = TraceBuilder(.android, appCode: "conform-restricted-app-code")
        b.register("r-1")
        b.getUser("r-1")
        #expect(b.violations() == [], "updates-restricted: reading conforms (D8)")
        var config = FlowCheckConfiguration.reference
        config.accessRestrictedApplicationCodes = ["conform-restricted-app-code"]
        let v = b.violations(config)
        #expect(v.map(\.rule) == [.restrictedPersonalData])
        #expect(v.first?.endpoint == "M7")
        #expect(v.first?.step == .backendOnly)
    }

    @Test func peoplePushRegistrationCallsCarryAppCode() {
        var b = TraceBuilder(.android)
        b.register("dev-1")
        b.add(
            .post, "/people/2/contactInformation/push/dev-1/personalize", auth: "App conform-api-key",
            body: #"{"identity":{"externalId":"u1"}}"#)
        b.add(.post, "/people/2/contactInformation/push/dev-1/depersonalize", auth: "App conform-api-key")
        b.add(.get, "/people/2/persons?identifier=u1&type=EXTERNAL_ID", auth: "App conform-api-key")
        let v = b.violations()
        #expect(v.map(\.rule) == [.backendCredentials, .backendCredentials], "B5 needs no AppCode")
        #expect(v.map(\.endpoint) == ["B3", "B4"])
        #expect(v.first?.message == "B3 (People push registration) without the AppCode header")
    }

    // MARK: primary-push

    @Test func primaryOnlyPushToAPersonWithoutAPrimaryDevice() async throws {
        var s = ReferenceSession()
        let a = try await s.register()
        let b = try await s.register()
        try await s.personalize(a, user: "ana")
        try await s.personalize(b, user: "ana")
        try await s.push("ana", primaryOnly: true)  // no listing yet: the trace cannot tell
        try await s.getUser(a)  // lists both installations, none primary
        try await s.push("ana", primaryOnly: false)
        try await s.push("ana", primaryOnly: true)
        try await s.send(.patch, "/mobile/1/appinstance/\(b)", device: b, body: #"{"isPrimary":true}"#)
        try await s.push("ana", primaryOnly: true)
        let v = s.check().violations
        #expect(v.map(\.rule) == [.primaryPush])
        #expect(v.first?.seq == 8)
        #expect(v.first?.step == .primary)
    }

    @Test func primaryOnlyPushAfterSetDeviceAsPrimaryConforms() async throws {
        var s = ReferenceSession()
        let a = try await s.register()
        let b = try await s.register()
        try await s.personalize(a, user: "ana", primary: true)
        try await s.personalize(b, user: "ana")
        try await s.getUser(b)
        try await s.push("ana", primaryOnly: true)
        try await s.send(
            .get, "/people/2/persons?identifier=ana&type=EXTERNAL_ID", backend: true)
        try await s.depersonalize(a)  // the primary leaves; the person keeps only a non-primary device
        try await s.push("ana", primaryOnly: true)
        #expect(s.rules() == ["primary-push"])
        #expect(s.check().violations.first?.seq == 9)
    }
}
