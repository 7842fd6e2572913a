import ConformCore
import ConformReport
import Foundation
import Testing

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
            exchanges: s.withoutEvents().count)
        let result = FlowCheckReport.result([trace], rules: FlowRule.all)
        let verdicts = Self.verdicts(result)
        for rule in Self.eventRules { #expect(verdicts[rule] == .notExercised, "\(rule)") }
        // Nothing here is restricted, a user switch, a backend call or a primary-only push: not exercised either.
        for rule in [FlowRule.restrictedPersonalData, .primaryPush, .userSwitch, .backendCredentials] {
            #expect(verdicts[rule.id] == .notExercised, "\(rule.id)")
        }
        for rule in [FlowRule.registrationFirst, .registrationHeader, .personalizeIdentity, .jwtSubject] {
            #expect(verdicts[rule.id] == .pass, "\(rule.id)")
        }
        let login = try #require(result.steps.first { $0.name.hasPrefix("login-personalize:") })
        #expect(login.error == FlowRule.loginPersonalize.notExercisedReason)
        #expect(login.error?.hasPrefix("not exercised: the traffic holds no login app event") == true)
        #expect(
            result.checkedTraffic == RunResult.CheckedTraffic(exchanges: 4, appEvents: 0, rules: 12, rulesExercised: 4))
        #expect(result.checkedTraffic?.summary == "4 exchanges, 0 app events, 4 of 12 rules exercised")
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

    @Test func anObligationStillOpenAtTheEndIsNotExercised() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        s.event(.logout, device: id)
        let outcome = s.check()
        #expect(outcome.violations == [])
        #expect(!outcome.exercised.contains(FlowRule.logoutDepersonalize.id))
        #expect(outcome.notes.contains { $0.contains("no depersonalize before the trace ended") })
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
        let trace = FlowCheckReport.Trace(path: "t.jsonl", violations: [], notes: [], exercised: [], exchanges: 1)
        let result = FlowCheckReport.result([trace], rules: FlowRule.all)
        #expect(result.counts == [.notExercised: 12])
        #expect(result.status == .cannotRun)
        #expect(result.outcome == "CANNOT JUDGE")
        let empty = FlowCheckReport.Trace(path: "e.jsonl", violations: [], notes: [], exercised: [], exchanges: 0)
        let nothing = FlowCheckReport.result([empty], rules: FlowRule.all)
        #expect(nothing.status == .cannotRun)
        #expect(
            nothing.steps.allSatisfy { $0.error == "not exercised: the traffic holds no exchange and no app event" })
    }

    @Test func aDisabledRuleIsNeitherJudgedNorCounted() async throws {
        let s = try await Self.session()
        var configuration = FlowCheckConfiguration.reference
        configuration.disabledRules = [FlowRule.jwtSubject.id]
        let outcome = FlowChecker.check(s.withoutEvents(), configuration: configuration)
        #expect(!outcome.exercised.contains(FlowRule.jwtSubject.id))
        let trace = FlowCheckReport.Trace(
            path: "t.jsonl", violations: [], notes: [], exercised: outcome.exercised, exchanges: 4)
        let result = FlowCheckReport.result([trace], rules: FlowRule.all.filter { $0 != .jwtSubject })
        #expect(result.checkedTraffic?.rules == 11)
        #expect(result.checkedTraffic?.rulesExercised == 3)
    }
}
