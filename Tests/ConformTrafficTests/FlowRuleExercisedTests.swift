import ConformCore
import ConformMobileMessaging
import ConformReport
import Foundation
import Testing

@testable import ConformFlowCheck
@testable import ConformTraffic

/// A rule the traffic gave nothing to judge is "not exercised", never a pass; a check that exercised nothing
/// cannot judge.
@Suite struct FlowRuleExercisedTests {
    static let eventRules: Set<String> = [
        FlowRule.loginPersonalize.id, FlowRule.logoutDepersonalize.id, FlowRule.sessionExpiryDepersonalize.id,
        FlowRule.appUpdatePersonalize.id,
    ]

    /// One device that registers, logs in, patches its user, logs out and depersonalizes, and its pushRegId.
    static func loggedOut() async throws -> (ReferenceSession, String) {
        var s = ReferenceSession()
        let id = try await s.register()
        s.event(.login, device: id, user: "ana")
        try await s.personalize(id, user: "ana")
        try await s.patchUser(id)
        s.event(.logout, device: id)
        try await s.depersonalize(id)
        return (s, id)
    }

    static func session() async throws -> ReferenceSession { try await loggedOut().0 }

    static func verdicts(_ result: RunResult) -> [String: Verdict] {
        var out: [String: Verdict] = [:]
        for step in result.steps { out[String(step.name.prefix { $0 != ":" })] = step.verdict }
        return out
    }

    @Test func aTraceWithoutAppEventsLeavesTheEventRulesNotExercised() async throws {
        let s = try await Self.session()
        let outcome = FlowChecker.check(s.withoutEvents(), configuration: .reference)
        #expect(outcome.violations == [])
        #expect(outcome.exercised.isDisjoint(with: Self.eventRules))
        let trace = FlowCheckReport.Trace(
            path: "t.jsonl", violations: outcome.violations, notes: outcome.notes, exercised: outcome.exercised,
            exchanges: s.withoutEvents().count, showedFlow: outcome.showedFlow)
        let result = FlowCheckReport.result([trace], rules: MobileMessaging.flowRules)
        let verdicts = Self.verdicts(result)
        for rule in Self.eventRules { #expect(verdicts[rule] == .notExercised, "\(rule)") }
        // Nothing here is restricted, a user switch, a backend call, a primary-only push or a JWT application (nor a
        // Bearer where one does not belong): not exercised either.
        for rule in [FlowRule.restrictedPersonalData, .primaryPush, .userSwitch, .backendCredentials, .jwtSubject] {
            #expect(verdicts[rule.id] == .notExercised, "\(rule.id)")
        }
        for rule in [FlowRule.registrationFirst, .registrationHeader, .personalizeIdentity] {
            #expect(verdicts[rule.id] == .pass, "\(rule.id)")
        }
        let login = try #require(result.steps.first { $0.name.hasPrefix("login-personalize:") })
        #expect(login.error == FlowRule.loginPersonalize.notExercisedReason)
        #expect(login.error?.hasPrefix("not exercised: the traffic holds no login app event") == true)
        #expect(
            result.checkedTraffic == RunResult.CheckedTraffic(exchanges: 4, appEvents: 0, rules: 17, rulesExercised: 3))
        #expect(result.checkedTraffic?.summary == "4 exchanges, 0 app events, 3 of 17 rules exercised")
        // Rules that held where exercised, and none broken: the check conforms, with the rest shown as not exercised.
        #expect(result.status == .conforms)
    }

    @Test func theSameTrafficWithItsEventsExercisesTheEventRules() async throws {
        let s = try await Self.session()
        let outcome = s.check()
        #expect(outcome.violations == [])
        #expect(outcome.exercised.isSuperset(of: [FlowRule.loginPersonalize.id, FlowRule.logoutDepersonalize.id]))
        #expect(!outcome.exercised.contains(FlowRule.sessionExpiryDepersonalize.id))
        #expect(!outcome.exercised.contains(FlowRule.appUpdatePersonalize.id))
    }

    @Test func aBrokenRuleIsExercisedAndFails() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        s.event(.logout, device: id)
        try await s.getUser(id)
        let outcome = s.check()
        #expect(outcome.violations.map(\.rule) == [.logoutDepersonalize])
        #expect(outcome.exercised.contains(FlowRule.logoutDepersonalize.id))
    }

    /// A logout or a session expiry that the trace ends without depersonalizing is a violation of its rule, at the
    /// event: the previous user's pushes keep reaching the device. A login still waiting for its personalize is a note.
    @Test(arguments: [AppEvent.Kind.logout, .sessionExpired])
    func aDepersonalizeStillOwedAtTheEndIsAViolation(_ kind: AppEvent.Kind) async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        s.event(kind, device: id)
        let outcome = s.check()
        let rule = kind == .logout ? FlowRule.logoutDepersonalize : .sessionExpiryDepersonalize
        #expect(outcome.violations.map(\.rule) == [rule])
        let violation = try #require(outcome.violations.first)
        #expect(violation.endpoint == "event:\(kind)")
        #expect(violation.flow == id)
        #expect(
            violation.message
                == "\(kind) (event \(violation.seq)) and no depersonalize before the trace ended: the device still "
                + "belongs to the user 'ana', whose pushes keep reaching it")
        #expect(outcome.exercised.contains(rule.id))
        #expect(!outcome.notes.contains { $0.contains("depersonalize") })
        // Depersonalized in time: kept, and exercised.
        try await s.depersonalize(id)
        #expect(s.check().violations == [])
        #expect(s.check().exercised.contains(rule.id))
        // A login whose personalize has not come yet is still only a note.
        var t = ReferenceSession()
        let other = try await t.register()
        t.event(.login, device: other, user: "ivo")
        #expect(t.check().violations == [])
        #expect(t.check().notes.contains { $0.contains("no personalize to 'ivo' before the trace ended") })
    }

    /// A user-data read after the logout already broke the rule: the end of the trace does not report it again.
    @Test func aDepersonalizeOwedAndBrokenByAReadIsReportedOnce() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        s.event(.logout, device: id)
        try await s.getUser(id)
        #expect(s.check().violations.map(\.rule) == [.logoutDepersonalize])
    }

    /// Traffic with no registration, no user call and no backend call (a base-URL call and an event) shows nothing of
    /// the flow: CANNOT JUDGE, even where a rule was exercised.
    @Test func aTraceWithoutTrafficOfTheFlowCannotJudge() {
        let trace = FlowCheckReport.Trace(
            path: "t.jsonl", violations: [], notes: [], exercised: [FlowRule.registrationHeader.id], exchanges: 1,
            events: 1, showedFlow: false)
        let result = FlowCheckReport.result([trace], rules: MobileMessaging.flowRules)
        #expect(result.status == .cannotRun)
        #expect(result.outcome == "CANNOT JUDGE")
        #expect(
            result.steps.contains {
                $0.name == "no traffic of the flow"
                    && $0.error?.hasPrefix("cannot judge: the traffic holds no registration, no user call") == true
            })
    }

    @Test func aPrimaryOnlyPushIsJudgedOnlyForAPersonWhoseDevicesWereListed() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        try await s.push("ana", primaryOnly: true)
        #expect(!s.check().exercised.contains(FlowRule.primaryPush.id))
        try await s.getUser(id)
        try await s.push("ana", primaryOnly: true)
        #expect(s.check().exercised.contains(FlowRule.primaryPush.id))
    }

    @Test func aCheckThatExercisedNoRuleCannotJudge() {
        // A trace of one exchange the checker does not classify: no rule judged anything.
        let trace = FlowCheckReport.Trace(
            path: "t.jsonl", violations: [], notes: [], exercised: [], exchanges: 1, showedFlow: true)
        let result = FlowCheckReport.result([trace], rules: MobileMessaging.flowRules)
        #expect(result.counts == [.notExercised: MobileMessaging.flowRules.count])
        #expect(result.status == .cannotRun)
        #expect(result.outcome == "CANNOT JUDGE")
        let empty = FlowCheckReport.Trace(
            path: "e.jsonl", violations: [], notes: [], exercised: [], exchanges: 0, showedFlow: false)
        let nothing = FlowCheckReport.result([empty], rules: MobileMessaging.flowRules)
        #expect(nothing.status == .cannotRun)
        #expect(
            nothing.steps.allSatisfy { $0.error == "not exercised: the traffic holds no exchange and no app event" })
    }

    @Test func aDisabledRuleIsNeitherJudgedNorCounted() async throws {
        let s = try await Self.session()
        var configuration = FlowCheckConfiguration.reference
        configuration.disabledRules = [FlowRule.registrationHeader.id]
        let outcome = FlowChecker.check(s.withoutEvents(), configuration: configuration)
        #expect(!outcome.exercised.contains(FlowRule.registrationHeader.id))
        let trace = FlowCheckReport.Trace(
            path: "t.jsonl", violations: [], notes: [], exercised: outcome.exercised, exchanges: 4, showedFlow: true)
        let result = FlowCheckReport.result(
            [trace], rules: MobileMessaging.flowRules.filter { $0 != .registrationHeader })
        #expect(result.checkedTraffic?.rules == MobileMessaging.flowRules.count - 1)
        #expect(result.checkedTraffic?.rulesExercised == 2)
    }
}
