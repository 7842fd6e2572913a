import ConformReport
import ConformRunner

/// What a certification found: whether the implementation conforms, the console report, and every step's result.
public struct CertificationResult: Sendable, CustomStringConvertible {
    /// The verdict of a whole certification, as `conform run` maps it to exit codes 0, 1 and 2.
    public enum Outcome: String, Sendable, Hashable {
        /// Every `must` and `should` check passed; `assumed` checks may have differed.
        case conforms = "conforms"
        /// At least one `must` or `should` check failed.
        case doesNotConform = "does not conform"
        /// The suites did not load, the target could not be reached, or a report could not be written.
        case couldNotRun = "could not run"

        /// The outcome of a run's exit code (0 conforms, 1 does not conform, 2 could not run).
        init(exitCode: Int32) {
            switch exitCode {
            case 0: self = .conforms
            case 1: self = .doesNotConform
            default: self = .couldNotRun
            }
        }
    }

    /// The verdict.
    public var outcome: Outcome
    /// The report `conform run --no-color` prints for the same run: every suite, the steps that did not pass with
    /// their diffs, and the summary line; or the problems that kept the run from starting.
    public var summary: String
    /// Every suite's and step's result, with requests and responses; `nil` when nothing ran.
    public var run: RunResult?

    /// Whether the implementation conforms: the condition to `#expect` or `XCTAssert`.
    public var conforms: Bool { outcome == .conforms }

    /// The outcome in words (`does not conform`); short, because a failed `#expect(result.conforms, …)` shows it
    /// beside the expression before the message, which is where the ``summary`` belongs.
    public var description: String { outcome.rawValue }

    /// A result with `outcome`, the report text and the run behind it.
    public init(outcome: Outcome, summary: String, run: RunResult?) {
        self.outcome = outcome
        self.summary = summary
        self.run = run
    }
}
