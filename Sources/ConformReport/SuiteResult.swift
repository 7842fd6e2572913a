import ConformCore

/// A group's steps (a suite's, in flow and step order; a device flow's; a flow step's), and its overall verdict.
public struct SuiteResult: Sendable, Hashable {
    public var group: ResultGroup
    public var steps: [StepResult]
    public var duration: Double

    public init(group: ResultGroup, steps: [StepResult], duration: Double) {
        self.group = group
        self.steps = steps
        self.duration = duration
    }

    /// The result of a suite's steps.
    public init(suite: Suite, steps: [StepResult], duration: Double) {
        self.init(group: ResultGroup(suite), steps: steps, duration: duration)
    }

    /// The worst step verdict; `pass` for a suite with no steps. Skipped steps do not count against it; a group whose
    /// steps were none of them exercised (a flow step of a check the traffic never reached) is `not exercised`.
    public var verdict: Verdict {
        let worst = steps.map(\.verdict).max() ?? .pass
        if worst == .notExercised || worst == .skipped {
            return steps.contains { $0.verdict == .pass } || !steps.contains { $0.verdict == .notExercised }
                ? .pass : .notExercised
        }
        return worst
    }
}
