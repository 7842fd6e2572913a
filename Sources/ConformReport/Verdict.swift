/// The verdict of a step, suite or run; its raw value is how JSON reports spell it.
public enum Verdict: String, Sendable, Hashable, Comparable, CaseIterable {
    case pass
    /// A flow rule the checked traffic never gave anything to judge (no app event, no primary-only push, …):
    /// not a pass, and nothing the implementation did wrong.
    case notExercised = "not exercised"
    /// Only `assumed` checks failed: the implementation differs from a decision, not from the protocol.
    case assumptionNotMet = "assumption not met"
    /// Skipped because an earlier step of its flow failed.
    case skipped
    /// A `must` or `should` check failed, or the exchange failed.
    case fail
    /// The step could not run: the target is unreachable or the suite cannot be rendered.
    case error

    /// Worse verdicts rank higher; a suite or run takes the worst of its steps.
    private var rank: Int {
        switch self {
        case .pass: 0
        case .notExercised: 1
        case .skipped: 2
        case .assumptionNotMet: 3
        case .fail: 4
        case .error: 5
        }
    }

    public static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.rank < rhs.rank }

    /// The order in which reports list verdicts.
    public static let reportOrder: [Verdict] = [.pass, .fail, .assumptionNotMet, .skipped, .notExercised, .error]

    /// Whether the step judged anything: a step skipped or not exercised did not, and a result made only of them
    /// judged nothing (which is never a pass).
    public var judged: Bool { self != .skipped && self != .notExercised }
}
