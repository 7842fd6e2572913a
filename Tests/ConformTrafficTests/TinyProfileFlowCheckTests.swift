import ConformCore
import ConformMobileMessaging
import ConformReport
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@testable import ConformFlowCheck
@testable import ConformTraffic

/// The tiny protocol with a flow of its own (``ProtocolProfile/tinyFlow``): opening a session registers it, reading
/// one needs it opened, the admin API is its backend, and two rules in its own words judge a client's traffic.
extension ProtocolProfile {
    static let tinyFlow: ProtocolProfile = {
        var profile = ProtocolProfile.tinyTraffic
        profile.endpoints = EndpointCatalogue { request in TinyProfileFlowCheckTests.classify(request) }
        profile.flowRules = [TinyProfileFlowCheckTests.openFirst, TinyProfileFlowCheckTests.adminKey]
        return profile
    }()
}

/// The check judges a protocol that is not Mobile Messaging by its profile alone: the endpoints' roles tell it which
/// call is which, and the profile's rules are the only ones it judges and reports, in the profile's words.
@Suite struct TinyProfileFlowCheckTests {
    /// No session is read before the answer that opened it (the checker's `registration-first`).
    static let openFirst = FlowRule(
        id: "open-before-read", kind: .registrationFirst, step: FlowStep("1-open"),
        seed: "Open a session before you read it.", summary: "no session is read before the answer that opened it",
        help: "open the session (POST /api/v1/sessions) and read it by the id its answer gave",
        exercisedBy: "session read")
    /// Every admin call is authorized (the checker's `backend-credentials`).
    static let adminKey = FlowRule(
        id: "admin-key", kind: .backendCredentials, step: FlowStep("2-admin"),
        seed: "Admin calls carry the operator's key.", summary: "every admin call carries the operator's key",
        help: "send `Authorization: Tiny <operator key>` on every admin call", exercisedBy: "admin call")

    /// `POST /api/v1/sessions` registers, `GET /api/v1/sessions/{id}` needs its session opened, `/admin/…` is a
    /// backend call.
    static func classify(_ request: HTTPRequest) -> ProtocolProfile.Endpoint? {
        let parts = request.path.split(separator: "/").map(String.init)
        if parts.first == "admin" { return .init(id: "stats", base: "admin", traits: [.fromBackend]) }
        guard parts.count >= 3, parts.prefix(3) == ["api", "v1", "sessions"] else { return nil }
        if parts.count == 3, request.method == .post {
            return .init(id: "open", base: "api", traits: [.fromApp, .registration])
        }
        guard parts.count == 4, request.method == .get else { return nil }
        return .init(
            id: "read", base: "api", registrationID: parts[3], traits: [.needsRegistration, .fromApp])
    }

    /// The tiny traffic recorded against a tiny server: two sessions opened and read, the admin call unauthorized;
    /// each exchange starts 10 ms after the one before ended, so no read starts before its session was opened.
    static func recorded() throws -> [RecordedExchange] {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let start = Date(timeIntervalSince1970: 1_767_000_000)
        return try TinyProfileTrafficTests.record(into: dir, handler: TinyHandler()).enumerated().map { n, exchange in
            var exchange = exchange
            exchange.startedAt = start.addingTimeInterval(Double(n) / 100)
            return exchange
        }
    }

    static func report(
        _ exchanges: [RecordedExchange], _ configuration: FlowCheckConfiguration
    ) -> (FlowChecker.Outcome, RunResult) {
        let outcome = FlowChecker.check(exchanges.map { .exchange($0) }, configuration: configuration)
        let trace = FlowCheckReport.Trace(
            path: "tiny.jsonl", violations: outcome.violations, notes: outcome.notes, exercised: outcome.exercised,
            exchanges: exchanges.count, showedFlow: outcome.showedFlow, judged: outcome.judged)
        return (outcome, FlowCheckReport.result([trace], rules: configuration.judgedRules))
    }

    @Test func aViolationIsReportedWithTheProfilesIdAndWording() throws {
        let recorded = try Self.recorded()
        let configuration = FlowCheckConfiguration(profile: .tinyFlow)
        #expect(
            recorded.map { configuration.endpoints.classify($0.request)?.id } == [
                "open", "open", "read", "read", "stats",
            ])
        let (outcome, result) = Self.report(recorded, configuration)
        let violation = try #require(outcome.violations.first)
        #expect(outcome.violations.count == 1)
        #expect(violation.rule == Self.adminKey)
        #expect((violation.seq, violation.endpoint, violation.flow) == (5, "stats", "admin"))
        #expect(violation.step == FlowStep("2-admin"))
        #expect(violation.message == "stats without an Authorization header")
        #expect(violation.help == Self.adminKey.help)
        #expect(violation.diagnostic.code == "admin-key")
        #expect(outcome.exercised == ["open-before-read", "admin-key"])

        // The result lists the profile's two rules, in its steps and words, and none of Mobile Messaging's.
        #expect(result.suites.map(\.group.id) == ["check-1-open", "check-2-admin"])
        #expect(
            result.steps.map(\.name) == [
                "open-before-read: no session is read before the answer that opened it",
                "admin-key: every admin call carries the operator's key",
            ])
        #expect(result.steps.map(\.verdict) == [.pass, .fail])
        #expect(result.steps.first?.spec.section == Self.openFirst.seed)
        #expect(result.steps.last?.failures.first?.findings.first?.requirement == Self.adminKey.summary)
        let mobileMessaging = Set(MobileMessaging.flowRules.map(\.id))
        #expect(!result.steps.contains { mobileMessaging.contains(String($0.name.prefix { $0 != ":" })) })
        #expect(result.checkedTraffic?.rules == 2)
        #expect(result.status == .mismatch)
    }

    @Test func aReadOfASessionNeverOpenedBreaksTheProfilesRegistrationRule() {
        let read = RecordedExchange(
            seq: 1, flow: "s-ghost", upstream: "api", startedAt: Date(), durationMs: 1,
            request: HTTPRequest(method: .get, url: "/api/v1/sessions/s-ghost"),
            response: .json(404, ["fault": ["id": "NO_SESSION", "reason": "no session s-ghost"]]))
        let (outcome, result) = Self.report([read], FlowCheckConfiguration(profile: .tinyFlow))
        #expect(outcome.violations.map(\.rule.id) == ["open-before-read"])
        #expect(outcome.violations.first?.help == Self.openFirst.help)
        #expect(result.steps.map(\.verdict) == [.fail, .notExercised])
        #expect(result.steps.last?.error == "not exercised: the traffic holds no admin call")
    }

    /// The checker could judge that a read names its session in `X-Tiny-Session` (its `registration-header`), but
    /// the tiny profile declares no such rule: nothing is judged or listed until a profile does.
    @Test func aJudgmentTheProfileDoesNotDeclareIsNeitherMadeNorListed() throws {
        let recorded = try Self.recorded()
        var profile = ProtocolProfile.tinyFlow
        let (undeclared, _) = Self.report(recorded, FlowCheckConfiguration(profile: profile))
        #expect(!undeclared.violations.contains { $0.rule.kind == .registrationHeader })
        let named = FlowRule(
            id: "session-header", kind: .registrationHeader, step: FlowStep("1-open"), seed: "Name your session.",
            summary: "every read names its session in X-Tiny-Session", help: "send X-Tiny-Session")
        profile.flowRules.append(named)
        let (declared, result) = Self.report(recorded, FlowCheckConfiguration(profile: profile))
        #expect(declared.violations.map(\.rule.id) == ["session-header", "admin-key"])
        #expect(declared.violations.first?.message == "read after registration without the X-Tiny-Session header")
        #expect(result.checkedTraffic?.rules == 3)
        // Disabled, it is judged no more.
        var configuration = FlowCheckConfiguration(profile: profile)
        configuration.disabledRules = ["session-header"]
        #expect(Self.report(recorded, configuration).0.violations.map(\.rule.id) == ["admin-key"])
    }

    /// A profile that declares no rule gives a check that judges nothing: never a pass.
    @Test func aProfileWithoutFlowRulesGivesACheckThatCannotJudge() throws {
        var profile = ProtocolProfile.tinyFlow
        profile.flowRules = []
        let (outcome, result) = Self.report(try Self.recorded(), FlowCheckConfiguration(profile: profile))
        #expect(outcome.violations == [])
        #expect(outcome.exercised.isEmpty)
        #expect(outcome.showedFlow)
        #expect(result.steps.isEmpty)
        #expect(
            result.checkedTraffic == RunResult.CheckedTraffic(exchanges: 5, appEvents: 0, rules: 0, rulesExercised: 0))
        #expect(result.status == .cannotRun)
        #expect(result.outcome == "CANNOT JUDGE")
    }

    /// A live check (`record --check`) of the tiny traffic tells the profile's violation as it comes and ends with
    /// the profile's rules.
    @Test func aLiveCheckJudgesTheProfilesRules() throws {
        final class Told: Sendable { let ids = Mutex<[String]>([]) }
        let told = Told()
        let live = LiveFlowCheck(codes: ApplicationCodes(), profile: .tinyFlow, redactor: nil) { violation in
            told.ids.withLock { $0.append(violation.rule.id) }
        }
        for exchange in try Self.recorded() { live.observe(.exchange(exchange)) }
        #expect(told.ids.withLock { $0 } == ["admin-key"])
        let result = live.result(path: "tiny.jsonl", exchanges: 5, duration: 0)
        #expect(result.steps.map(\.verdict) == [.pass, .fail])
        #expect(result.checkedTraffic?.rules == 2)
    }
}
