import ConformCore
import ConformDiagnostics
import ConformMobileMessaging
import ConformReport
import ConformRunner
import Foundation

/// Certifies an implementation from a test: runs conformance suites against it through a ``Transport`` and says
/// whether it conforms, with the console report as the failure message.
///
/// ```swift
/// let result = await Certification.run(.transport(MySDKTransport(), baseURL: "http://127.0.0.1:8080"))
/// #expect(result.conforms, "\(result.summary)")        // Swift Testing
/// XCTAssertTrue(result.conforms, result.summary)       // XCTest
/// ```
///
/// The library depends on neither test framework: it returns a value, prints nothing and writes only the
/// report files it is asked for.
public enum Certification {
    /// The protocol the bundled suites speak: its bases are the target's base URLs.
    static let profile = ProtocolProfile.mobileMessaging

    /// Runs `suites` against `target` and returns whether it conforms, does not conform, or could not be run.
    ///
    /// - Parameters:
    ///   - target: the implementation under test: any ``Transport`` with its base URLs, or the embedded reference.
    ///   - suites: the bundled suites (the default), some of them, or suite files and directories of your own.
    ///   - variables: suite variables (`appCode`, `apiKey`, `mobile`, `backend`, …; see `suites/README.md`); they
    ///     win over the target's base URLs and the suites' defaults, as `conform run --var NAME=VALUE` does. Variables
    ///     from the environment (`CONFORM_VAR_NAME=VALUE`, ``CertificationOptions/environment``) are read as
    ///     `conform run` reads them: below `variables`, above the target's base URLs.
    ///   - options: the exchange timeout, report files to write, and how much the summary shows.
    public static func run(
        _ target: CertificationTarget, suites: CertificationSuites = .bundled, variables: [String: String] = [:],
        options: CertificationOptions = CertificationOptions()
    ) async -> CertificationResult {
        let loaded: LoadedSuites
        do {
            loaded = LoadedSuites(files: try suites.files(), profile: profile)
        } catch {
            return CertificationResult(outcome: .couldNotRun, summary: rendered(error.diagnostic), run: nil)
        }
        if let notRun = loaded.notRun {
            return CertificationResult(
                outcome: .couldNotRun, summary: loaded.renderedProblems().rendered + rendered(notRun), run: nil)
        }
        if loaded.suites.isEmpty {
            return CertificationResult(
                outcome: .couldNotRun,
                summary: rendered(
                    Diagnostic(
                        .suiteNotFound, message: "no suites found in \(suites)",
                        help: "pass suite files (*.yaml) or directories holding them")),
                run: nil)
        }
        let run = SuiteRun(
            suites: loaded.suites, overrides: variables,
            environment: RunPlan.variables(fromEnvironment: options.environment), targetDefaults: target.baseURLs,
            exchangeTimeout: options.exchangeTimeout, targetDescription: target.description, profile: profile)
        // The session of `conform run`: the console, the report files and the exit status, from the one result;
        // partial or certifiable against the bundled suites, and where the verdict comes from, as `conform run`.
        let console = MemorySink()
        let session = run.session(
            console: ConsoleReporter(sink: console, color: false, verbose: options.verbose, masker: run.masker),
            reports: options.reports.map { ReportTarget(kind: $0.kind.target, file: $0.file) },
            scope: RunScope(
                running: loaded.suites,
                bundled: RunScope.suiteHashes(inDirectory: CertificationSuites.bundledDirectory.path)),
            provenance: run.provenance(commandLine: []))
        let outcome = await run.run(through: target.transport, in: session, retention: .memory)
        let summary = console.text + outcome.problems.map(rendered).joined()
        return CertificationResult(
            outcome: CertificationResult.Outcome(exitCode: outcome.status.rawValue), summary: summary,
            run: outcome.result)
    }

    /// A problem as the summary shows it: the one compiler-style rendering, plain, ending in a newline.
    private static func rendered(_ diagnostic: Diagnostic) -> String { diagnostic.rendered(sourceLine: nil) + "\n" }
}

/// How a certification runs beyond its target, suites and variables.
public struct CertificationOptions: Sendable {
    /// How long one exchange may take before its step fails (`conform run --timeout`).
    public var exchangeTimeout: Duration
    /// Report files to write when the run ends: JUnit XML, JSON, the HTML certification page.
    public var reports: [CertificationReport]
    /// Whether the summary lists every step, not only those that did not pass (`conform run --verbose`).
    public var verbose: Bool
    /// Where `CONFORM_VAR_NAME=VALUE` suite variables are read from, as `conform run` reads them: by default the
    /// process's environment.
    public var environment: [String: String]

    /// Options with a 10-second exchange timeout, no report files, a summary of the steps that did not pass, and
    /// suite variables from the process's environment.
    public init(
        exchangeTimeout: Duration = .seconds(10), reports: [CertificationReport] = [], verbose: Bool = false,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.exchangeTimeout = exchangeTimeout
        self.reports = reports
        self.verbose = verbose
        self.environment = environment
    }
}
