import ConformCore
import ConformMobileMessaging
import Foundation
import Testing

@testable import ConformFlowCheck
@testable import ConformTraffic

/// The rules that need app events, on real exchanges with the embedded reference.
@Suite struct FlowCheckerEventTests {
    @Test func logoutThenDepersonalizeThenLoginConforms() async throws {
        var (s, id) = try await FlowRuleExercisedTests.loggedOut()
        s.event(.login, device: id, user: "ivo")
        try await s.personalize(id, user: "ivo")
        try await s.getUser(id)
        let result = s.check()
        #expect(result.violations == [])
        #expect(result.notes == [])
    }

    @Test func logoutFollowedByAUserCallBeforeDepersonalize() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        s.event(.logout, device: id)
        try await s.patchUser(id)
        try await s.getUser(id)  // reported once per logout
        try await s.depersonalize(id)
        let v = s.check().violations
        #expect(v.map(\.rule) == [.logoutDepersonalize])
        #expect(v.first?.seq == 4)
        #expect(v.first?.step == .logout)
        #expect(v.first?.endpoint == "M8")
        #expect(
            v.first?.message == "M8 updates the user 'ana' after logout (event 3) before the device was depersonalized")
        // The same traffic without the event: the rule stays silent.
        #expect(FlowChecker.check(s.withoutEvents(), configuration: .reference).violations == [])
    }

    @Test func loginAfterLogoutWithoutDepersonalize() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        s.event(.logout, device: id)
        s.event(.login, device: id, user: "ivo")
        try await s.personalize(id, user: "ivo", force: true)
        let v = s.check().violations
        #expect(v.map(\.rule) == [.logoutDepersonalize])
        #expect(v.first?.endpoint == "event:login")
        #expect(
            v.first?.description
                == "event 4 (login, step 3-logout, flow \(id)): error[logout-depersonalize]: login of 'ivo' before the device was depersonalized after logout (event 3)\nhelp: \(FlowRule.logoutDepersonalize.help)"
        )
    }

    @Test func logoutOfAnAnonymousDeviceAsksForNothing() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        s.event(.logout, device: id)
        s.event(.login, device: id, user: "ivo")
        try await s.personalize(id, user: "ivo")
        #expect(s.check().violations == [])
    }

    @Test func sessionExpiryDepersonalizedByTheBackendConforms() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        try await s.session(id)
        s.event(.sessionExpired, device: id)
        try await s.session(id)  // a session report carries no user data
        try await s.backendDepersonalize(id)
        s.event(.login, device: id, user: "ivo")
        try await s.personalize(id, user: "ivo")
        #expect(s.check().violations == [])
    }

    @Test func sessionExpiryWithoutDepersonalize() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        s.event(.sessionExpired, device: id)
        try await s.getUser(id)
        s.event(.login, device: id, user: "ivo")
        let v = s.check().violations
        #expect(v.map(\.rule) == [.sessionExpiryDepersonalize, .sessionExpiryDepersonalize])
        #expect(v.map(\.step) == [.sessions, .sessions])
        #expect(v.map(\.endpoint) == ["M7", "event:login"])
        #expect(FlowChecker.check(s.withoutEvents(), configuration: .reference).violations == [])
        // An expiry never followed up by the end of the trace is a violation at the event: the previous user's
        // pushes keep reaching the device.
        var t = ReferenceSession()
        let other = try await t.register()
        try await t.personalize(other, user: "ana")
        t.event(.sessionExpired, device: other)
        #expect(t.check().violations.map(\.rule) == [.sessionExpiryDepersonalize])
        #expect(t.check().violations.map(\.endpoint) == ["event:sessionExpired"])
        #expect(t.check().notes == [])
    }

    @Test func loginOfAnotherUserNeedsForce() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        s.event(.login, device: id, user: "ivo")
        try await s.personalize(id, user: "ivo")  // refused by the reference (D2), and wrong on the client side
        try await s.personalize(id, user: "ivo", force: true)
        let v = s.check().violations
        #expect(v.map(\.rule) == [.loginPersonalize], "reported once, by the event's rule rather than user-switch")
        #expect(v.first?.seq == 4)
        #expect(v.first?.message.contains("on a device personalized to 'ana' without forceDepersonalize=true") == true)
        // Without the event, the same personalize is still a user switch.
        #expect(FlowChecker.check(s.withoutEvents(), configuration: .reference).violations.map(\.rule) == [.userSwitch])
    }

    @Test func loginPersonalizesTheLoggedInUser() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        s.event(.login, device: id, user: "ana")
        try await s.personalize(id, user: "eve")
        #expect(s.rules() == ["login-personalize"])
        #expect(s.check().violations.first?.message == "M4 personalizes to 'eve' after login (event 2) of 'ana'")
    }

    @Test func loginThenReadingThePreviousUsersData() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        try await s.personalize(id, user: "ana")
        s.event(.login, device: id, user: "ivo")
        try await s.getUser(id)
        try await s.personalize(id, user: "ivo", force: true)
        let v = s.check().violations
        #expect(v.map(\.rule) == [.loginPersonalize])
        #expect(v.first?.endpoint == "M7")
    }

    @Test func appUpdateWithALiveSessionPersonalizesWithForce() async throws {
        var s = ReferenceSession()
        s.event(.appUpdated, user: "ana")
        let id = try await s.register()
        try await s.personalize(id, user: "ana", force: true)
        #expect(s.check().violations == [])
        #expect(s.check().notes == [])

        var bad = ReferenceSession()
        bad.event(.appUpdated, user: "ana")
        let fresh = try await bad.register()
        try await bad.personalize(fresh, user: "ana")
        let v = bad.check().violations
        #expect(v.map(\.rule) == [.appUpdatePersonalize])
        #expect(v.first?.step == .sessions)
        #expect(v.first?.message == "M4 after appUpdated (event 1) of 'ana' without forceDepersonalize=true")
        #expect(FlowChecker.check(bad.withoutEvents(), configuration: .reference).violations == [])
    }

    @Test func appUpdateNamingTheNewRegistrationAndUpdatesWithoutASession() async throws {
        var s = ReferenceSession()
        let id = try await s.register()
        s.event(.appUpdated, device: id, user: "ana")
        try await s.personalize(id, user: "ana")
        #expect(s.rules() == ["app-update-personalize"])

        var anonymous = ReferenceSession()
        anonymous.event(.appUpdated)  // no live session: nothing to do
        let other = try await anonymous.register()
        try await anonymous.personalize(other, user: "ana")
        #expect(anonymous.check().violations == [])
    }

    @Test func eventsWithoutADeviceAreJudgedOnlyWhenTheTraceHasOne() async throws {
        var s = ReferenceSession()
        let a = try await s.register()
        try await s.personalize(a, user: "ana")
        s.event(.logout)
        try await s.patchUser(a)
        #expect(s.rules() == ["logout-depersonalize"])

        var two = ReferenceSession()
        let first = try await two.register()
        _ = try await two.register()
        try await two.personalize(first, user: "ana")
        two.event(.logout)
        try await two.patchUser(first)
        let result = two.check()
        #expect(result.violations == [])
        #expect(result.notes.count == 1)
        #expect(result.notes.first?.hasPrefix("event 4 (logout) names no pushRegId") == true)
    }

    @Test func eventsOfAFileArePlacedByTime() {
        var b = TraceBuilder(.android)
        b.clock = 1_767_600_000
        b.register("dev-1")
        b.personalize("dev-1", user: "u1")
        b.patchUser("dev-1")  // started at clock + 2 s
        b.depersonalize("dev-1")
        let base = Date(timeIntervalSince1970: 1_767_600_000)
        let before = AppEvent(kind: .logout, at: base.addingTimeInterval(1.5), pushRegId: "dev-1")
        let after = AppEvent(kind: .logout, at: base.addingTimeInterval(2.5), pushRegId: "dev-1")
        let records = b.exchanges.map(TraceRecord.exchange)
        #expect(
            FlowChecker.check(records, events: [before], configuration: .reference).violations.map(\.rule) == [
                .logoutDepersonalize
            ])
        #expect(FlowChecker.check(records, events: [after], configuration: .reference).violations == [])
        #expect(FlowChecker.check(records, events: [after], configuration: .reference).notes == [])
    }
}
