import ConformTestSupport
import Foundation
import Testing

/// A credential forgotten against a live target is said at start, before it can read as the implementation's 401s;
/// a CI that exports the whole plan's `CONFORM_VAR_*` can run any one suite; a misspelt `--var` stays an error.
@Suite struct ForgottenCredentialTests {
    func conform(_ args: [String], environment: [String: String] = [:]) async throws -> (
        code: Int32, out: String, err: String
    ) {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CONFORM_VAR_") }
        env.merge(environment) { _, new in new }
        let run = try await ChildProcess.output(
            TestPaths.conformBinary.path, args, environment: env, directory: TestPaths.root,
            separateStandardError: true)
        return (run.status, run.output, run.errorOutput)
    }

    @Test func aDefaultCredentialSentToALiveTargetIsAWarningNamingIt() async throws {
        let scratch = try Scratch()
        let served = try await offThePool {
            try ConformProcess(
                ["serve", "--port", "0"], scratch: scratch, banner: "Serving the reference implementation on ")
        }
        defer { _ = try? served.interrupt() }
        let forgotten = try await conform(["run", "suites/01-registration.yaml", "--target", served.baseURL])
        #expect(forgotten.code == 0, "\(forgotten.out)\(forgotten.err)")
        #expect(
            forgotten.err.contains(
                "warning: no value given for 'appCode', a credential the suites send: their default (the reference's "
                    + "public one) goes to \(served.baseURL); give it with CONFORM_VAR_appCode or --var appCode=…\n"),
            "\(forgotten.err)")
        let given = try await conform(
            ["run", "suites/01-registration.yaml", "--target", served.baseURL],
            environment: ["CONFORM_VAR_appCode": "conform-app-code", "CONFORM_VAR_apiKey": "conform-api-key"])
        #expect(given.code == 0, "\(given.out)\(given.err)")
        #expect(!given.err.contains("warning: no value given"), "\(given.err)")
        // The embedded reference is what the defaults are for: nothing to say.
        let builtin = try await conform(["run", "suites/01-registration.yaml"])
        #expect(!builtin.err.contains("warning: no value given"), "\(builtin.err)")
    }

    /// A live backend configured with its own codes refuses the reference's public ones: the run is about the
    /// forgotten credential (COULD NOT RUN, naming it), not a verdict on the backend; given, the same run conforms.
    @Test func aRunRefusedForItsDefaultCredentialsCouldNotRun() async throws {
        let scratch = try Scratch()
        let config = scratch.path("vendor.yaml")
        try """
        applications:
          - id: default
            applicationCode: vendor-app-code-5e1f
            apiKey: vendor-api-key-77c2
            userDataMode: all

        """.write(toFile: config, atomically: true, encoding: .utf8)
        let served = try await offThePool {
            try ConformProcess(
                ["serve", "--port", "0", "--config", config], scratch: scratch,
                banner: "Serving the reference implementation on ")
        }
        defer { _ = try? served.interrupt() }
        let forgotten = try await conform(["run", "suites/02-login.yaml", "--target", served.baseURL])
        #expect(forgotten.code == 2, "\(forgotten.out)\(forgotten.err)")
        #expect(forgotten.out.hasSuffix("Result: COULD NOT RUN\n"), "\(forgotten.out)")
        #expect(
            forgotten.out.contains(
                "Could not run: credentials refused: 401 for 2 of 2 judged steps while the suites sent their public "
                    + "default for 'appCode' (the embedded reference's); give it with CONFORM_VAR_appCode or "
                    + "--var appCode=… (2 steps)\n"),
            "\(forgotten.out)")
        let given = try await conform(
            ["run", "suites/02-login.yaml", "--target", served.baseURL],
            environment: ["CONFORM_VAR_appCode": "vendor-app-code-5e1f", "CONFORM_VAR_apiKey": "vendor-api-key-77c2"])
        #expect(given.code == 0, "\(given.out)\(given.err)")
        #expect(given.out.hasSuffix("Result: CONFORMS\n"), "\(given.out)")
    }

    @Test func theWholePlansEnvironmentRunsOneSuiteWithANote() async throws {
        let run = try await conform(
            ["run", "suites/01-registration.yaml"],
            environment: ["CONFORM_VAR_jwtAppCode": "vendor-jwt-code", "CONFORM_VAR_appCode": "conform-app-code"])
        #expect(run.code == 0, "\(run.out)\(run.err)")
        #expect(run.out.hasSuffix("Result: CONFORMS\n"))
        #expect(
            run.err.contains(
                "note: CONFORM_VAR_jwtAppCode sets 'jwtAppCode', which no suite given uses (the bundled suite "
                    + "suites/07-jwt-profile.yaml uses it); ignored\n"), "\(run.err)")
    }

    @Test func aVarNoSuiteGivenUsesStaysAnErrorNamingTheSuiteThatDoes() async throws {
        let bundled = try await conform(["run", "suites/01-registration.yaml", "--var", "jwtAppCode=x"])
        #expect(bundled.code == 64)
        #expect(
            bundled.err.contains(
                "--var jwtAppCode=… sets 'jwtAppCode', which no suite given declares or uses; the bundled suite "
                    + "suites/07-jwt-profile.yaml uses it: pass that suite too"), "\(bundled.err)")
        let misspelt = try await conform(["run", "suites/01-registration.yaml", "--var", "appcode=x"])
        #expect(misspelt.code == 64)
        #expect(misspelt.err.contains("which no suite given declares or uses; did you mean 'appCode'?"))
    }
}
