import ConformCLI
import ConformReference
import ConformReport
import ConformRunner
import ConformTestSupport
import ConformTesting
import Foundation
import Testing

/// The entry point against the embedded reference: verdicts, the summary, variables, selections and reports.
@Suite struct CertificationTests {
    static let root = TestPaths.root

    @Test func theReferenceConformsToEveryBundledSuite() async {
        let result = await Certification.run(.reference())
        #expect(result.conforms, "\(result.summary)")
        #expect(result.outcome == .conforms)
        #expect(result.run?.suites.count == CertificationSuites.bundledNames.count)
        #expect(result.summary.hasPrefix("Conform: \(CertificationSuites.bundledNames.count) suites, "))
        #expect(result.summary.hasSuffix("Result: CONFORMS\n"))
    }

    @Test func aFaultDoesNotConformAndTheSummaryIsTheConsoleReport() async {
        let result = await Certification.run(
            .reference(faults: [.ignoreForceDepersonalize]), suites: .bundled(["02-login"]))
        #expect(!result.conforms)
        #expect(result.outcome == .doesNotConform)
        #expect("\(result)" == "does not conform")
        let out = MemorySink()
        let io = CommandIO(
            out: out, err: MemorySink(), color: false, environment: [:], currentDirectory: Self.root.path)
        let code = await ConformCommand.main(
            ["conform", "run", "suites/02-login.yaml", "--fault", "ignoreForceDepersonalize"], io: io)
        #expect(code == 1)
        #expect(Self.stable(result.summary) == Self.stable(out.text))
        #expect(result.summary.contains("✘ phone › 8. the other user logs in with forceDepersonalize=true\n"))
        #expect(result.summary.contains("--> suites/02-login.yaml:98:7"))
    }

    @Test func variablesWinOverTheSuitesDefaults() async {
        let result = await Certification.run(
            .reference(), suites: .bundled(["01-registration"]), variables: ["appCode": "not-an-application"])
        #expect(result.outcome == .doesNotConform)
        // The wrong application code is sent, so the reference refuses the registration.
        #expect(result.summary.contains("POST http://mobile.conform.invalid/mobile/1/appinstance?ri=true -> 401\n"))
    }

    @Test func environmentVariablesAreReadAsConformRunReadsThem() async {
        // CONFORM_VAR_appCode sends a wrong application code, which the reference refuses.
        let environment = ["CONFORM_VAR_appCode": "not-an-application"]
        let fromEnvironment = await Certification.run(
            .reference(), suites: .bundled(["01-registration"]),
            options: CertificationOptions(environment: environment))
        #expect(fromEnvironment.outcome == .doesNotConform, "\(fromEnvironment.summary)")
        #expect(
            fromEnvironment.summary.contains(
                "POST http://mobile.conform.invalid/mobile/1/appinstance?ri=true -> 401\n"))
        // A variable given in code wins over the environment, as --var wins over CONFORM_VAR_.
        let overridden = await Certification.run(
            .reference(), suites: .bundled(["01-registration"]), variables: ["appCode": "conform-app-code"],
            options: CertificationOptions(environment: environment))
        #expect(overridden.conforms, "\(overridden.summary)")
    }

    @Test func aVariantOfTheReferenceStillConforms() async {
        let result = await Certification.run(
            .reference(variants: [.opaqueIds, .extraMembers]), suites: .bundled(["02-login", "08-error-envelopes"]))
        #expect(result.conforms, "\(result.summary)")
        #expect(
            result.summary.contains(
                "against the embedded reference implementation with variants extraMembers, opaqueIds"))
    }

    @Test func theReferenceRunsOnTheGivenClock() async {
        // An hour behind, the reference still takes the suite's expired token (exp two minutes ago) as valid.
        let result = await Certification.run(
            .reference(clock: { Date(timeIntervalSinceNow: -3600) }), suites: .bundled(["07-jwt-profile"]))
        #expect(result.outcome == .doesNotConform, "\(result.summary)")
        #expect(result.summary.contains("✘ expired › 2. personalize with an expired JWT is refused\n"))
        #expect(result.run?.steps.filter { $0.verdict == .fail }.count == 2, "\(result.summary)")
    }

    @Test func anUnknownBundledSuiteCannotRun() async {
        let result = await Certification.run(.reference(), suites: .bundled(["99-nothing"]))
        #expect(result.outcome == .couldNotRun)
        #expect(result.run == nil)
        #expect(
            result.summary.hasPrefix("error: no bundled suite named '99-nothing'\nhelp: use one of: 01-"))
        #expect(result.summary.contains(" 01-registration, "))
    }

    @Test func aBrokenSuiteFileCannotRunAndNamesItsLine() async throws {
        let scratch = try Scratch()
        let file = scratch.url.appendingPathComponent("broken.yaml")
        try Data("suite: broken\ntitle: Broken\nsteps:\n  - name: one\n    request: 7\n".utf8).write(to: file)
        let result = await Certification.run(.reference(), suites: .files([scratch.url]))
        #expect(result.outcome == .couldNotRun)
        #expect(result.summary.contains("\(file.path):5:"))
        #expect(result.summary.contains("error: 1 problem in the suites; nothing was run\n"))
    }

    @Test func reportsAreWrittenWhereAsked() async throws {
        let scratch = try Scratch()
        let junit = scratch.url.appendingPathComponent("conform.xml")
        let html = scratch.url.appendingPathComponent("conform.html")
        let json = scratch.url.appendingPathComponent("conform.json")
        let result = await Certification.run(
            .reference(), suites: .bundled(["01-registration"]),
            options: CertificationOptions(reports: [.junit(junit), .html(html), .json(json)]))
        #expect(result.conforms, "\(result.summary)")
        #expect(try String(contentsOf: junit, encoding: .utf8).contains("<testsuite name=\"registration\""))
        #expect(try String(contentsOf: html, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        #expect(try String(contentsOf: json, encoding: .utf8).hasPrefix("{"))

        let nowhere = scratch.url.appendingPathComponent("missing/conform.xml")
        let failed = await Certification.run(
            .reference(), suites: .bundled(["01-registration"]),
            options: CertificationOptions(reports: [.junit(nowhere)]))
        #expect(failed.outcome == .couldNotRun)
        #expect(failed.summary.contains("error: cannot write the junit report to \(nowhere.path)"))
    }

    /// The report without what changes from run to run: durations and generated ids.
    static func stable(_ text: String) -> String {
        text.replacingOccurrences(of: #"[0-9]+\.[0-9]+ s\n"#, with: "_ s\n", options: .regularExpression)
            .replacingOccurrences(
                of: #"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"#, with: "<uuid>",
                options: .regularExpression)
    }
}
