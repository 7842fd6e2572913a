/// The verdict of a step, suite or run; its raw value is how JSON reports spell it.
public enum Verdict: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    case pass
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
        case .skipped: 1
        case .assumptionNotMet: 2
        case .fail: 3
        case .error: 4
        }
    }

    public static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.rank < rhs.rank }

    /// The order in which reports list verdicts.
    public static let reportOrder: [Verdict] = [.pass, .fail, .assumptionNotMet, .skipped, .error]
}
