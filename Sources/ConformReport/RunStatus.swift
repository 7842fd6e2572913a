/// What a command's result means for its exit status; the one place results become exit codes.
public enum RunStatus: Int32, Sendable, Hashable {
    /// The implementation conforms, or the two sides behave the same.
    case conforms = 0
    /// At least one must or should check failed, or an exchange differed.
    case mismatch = 1
    /// The command could not run or cannot judge.
    case cannotRun = 2
    /// The command line was wrong.
    case usage = 64

    /// The status of `result`, by its ``RunResult/Kind``.
    ///
    /// Whatever the kind: 2 when no step judged anything (none, or all skipped or not exercised).
    /// A conformance run: 2 when a step could not run, else 1 when one failed, else 0. A comparison (replay, diff):
    /// 2 when every exchange went unanswered, or when nothing differed but some exchanges cannot be judged; else 1
    /// when anything differed, went unanswered or cannot be judged; else 0.
    public init(_ result: RunResult) { self.init(kind: result.kind, counts: result.counts) }

    /// The status of a result of `kind` with `counts` steps of each verdict, for commands that count as they go
    /// instead of keeping every step.
    public init(kind: RunResult.Kind, counts: [Verdict: Int]) {
        let passed = counts[.pass, default: 0]
        let failed = counts[.fail, default: 0]
        let errors = counts[.error, default: 0]
        let unjudged = counts[.skipped, default: 0]
        // Nothing judged is never a pass: a result without a single step (an empty trace), or whose steps were all
        // skipped or not exercised (a check of traffic that reached no rule), could not judge.
        if counts.filter({ $0.key.judged }).values.reduce(0, +) == 0 {
            self = .cannotRun
            return
        }
        switch kind {
        case .conformance:
            self = errors > 0 ? .cannotRun : failed > 0 ? .mismatch : .conforms
        case .comparison:
            if errors > 0 && passed == 0 || failed == 0 && errors == 0 && unjudged > 0 {
                self = .cannotRun
            } else {
                self = failed + errors + unjudged > 0 ? .mismatch : .conforms
            }
        }
    }

    /// The run's verdict in the words of a certificate.
    public var words: String {
        switch self {
        case .conforms: "CONFORMS"
        case .mismatch: "DOES NOT CONFORM"
        case .cannotRun: "COULD NOT RUN"
        case .usage: "USAGE ERROR"
        }
    }
}
