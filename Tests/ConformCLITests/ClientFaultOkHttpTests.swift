import ConformTestSupport
import Foundation
import Testing

/// The recovery rules against an app whose network layer is OkHttp (Debian's `libokhttp-java`), the stack most
/// Android apps ship: under each fault profile the recovering app passes, and the forgetful one is caught by the
/// profile's rule and by no other.
@Suite struct ClientFaultOkHttpTests {
    static let jars = ["/usr/share/java/okhttp.jar", "/usr/share/java/okio.jar"]
    static let available = Tool.has("java") && jars.allSatisfy(FileManager.default.fileExists(atPath:))

    struct Profile: Sendable, CustomStringConvertible {
        var fault: String
        var scenario: String
        var rule: String
        var recovered: String
        var forgot: String?
        var description: String { fault }
    }

    static let profiles = [
        Profile(
            fault: "error:M6", scenario: "logout", rule: "check-3-logout › depersonalize-retry",
            recovered: "depersonalize 200\n", forgot: "depersonalize 503\n"),
        Profile(
            fault: "reset:M6", scenario: "logout", rule: "check-3-logout › depersonalize-retry",
            recovered: "depersonalize 200\n", forgot: "depersonalize no answer\n"),
        Profile(
            fault: "offline:M6=1s", scenario: "logout", rule: "check-3-logout › depersonalize-retry",
            recovered: "depersonalize 200\n", forgot: "depersonalize no answer\n"),
        Profile(
            fault: "error:M4", scenario: "login-again", rule: "check-2-login › personalize-retry",
            recovered: "user 200\n", forgot: nil),
        Profile(
            fault: "no-registration:M2", scenario: "forgotten", rule: "check-1-registration › registration-recovery",
            recovered: "update 400 NO_REGISTRATION\nuser 200\n", forgot: "update 400 NO_REGISTRATION\nuser 400\n"),
    ]

    func played(_ profile: Profile, _ mode: String) async throws -> (
        code: Int32, out: String, client: String, recording: String
    ) {
        let source = TrafficCommandTests.root + "/Tests/ConformCLITests/Fixtures/okhttp-app/App.java"
        return try await ClientFaultTests.checked(faults: profile.fault.isEmpty ? [] : [profile.fault]) { base in
            try await ChildProcess.output(
                Tool.path("java")!,
                ["-cp", Self.jars.joined(separator: ":"), source, base, profile.scenario, mode],
                separateStandardError: true)
        }
    }

    @Test(.enabled(if: available, "needs java and libokhttp-java"), arguments: profiles)
    func theRecoveringAppPassesAndTheForgetfulOneIsCaughtByTheRuleAlone(_ profile: Profile) async throws {
        let recovered = try await played(profile, "recover")
        #expect(recovered.client == profile.recovered, "\(recovered.client)")
        #expect(recovered.code == 0, "\(recovered.out)")
        #expect(recovered.out.hasSuffix("Result: 0 violations\n"), "\(recovered.out)")
        #expect(recovered.recording.contains(#"["Conform-Injected-Fault",""# + profile.fault))
        let forgot = try await played(profile, "forget")
        if let printed = profile.forgot { #expect(forgot.client == printed, "\(forgot.client)") }
        #expect(forgot.code == 1, "\(forgot.out)")
        #expect(forgot.out.contains("✘ \(profile.rule): "), "\(forgot.out)")
        #expect(forgot.out.hasSuffix("Result: 1 violation\n"), "\(forgot.out)")
    }

    /// Without faults the app passes and the recovery rules had nothing to judge.
    @Test(.enabled(if: available, "needs java and libokhttp-java"))
    func withoutFaultsEveryRecoveryRuleIsNotExercised() async throws {
        let plain = try await played(Profile(fault: "", scenario: "logout", rule: "", recovered: ""), "recover")
        #expect(plain.client == "depersonalize 200\n", "\(plain.client)")
        #expect(plain.code == 0, "\(plain.out)")
        for rule in [
            "check-3-logout › depersonalize-retry", "check-2-login › personalize-retry",
            "check-1-registration › registration-recovery",
        ] {
            #expect(plain.out.contains("○ \(rule): "), "\(rule) in \(plain.out)")
        }
        #expect(!plain.recording.contains("Conform-Injected-Fault"))
    }
}
