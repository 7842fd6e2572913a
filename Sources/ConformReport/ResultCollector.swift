import ConformCore
import Synchronization

/// Gathers the steps of a command other than a suite run (a replay, a diff, a mock session) as they come, grouped
/// into suites, and gives them as a run result for the reporters; safe to feed from concurrent tasks.
public final class ResultCollector: Sendable {
    private struct Group {
        var suite: Suite
        var steps: [StepResult]
    }

    private struct State {
        var order: [String] = []
        var groups: [String: Group] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Adds `step` to the suite with `suite`'s id, made from `suite` on first use; the step takes the suite's id.
    public func add(_ step: StepResult, to suite: @autoclosure () -> Suite) {
        state.withLock { s in
            var step = step
            let id = suite().id
            step.suiteID = id
            if s.groups[id] == nil {
                s.order.append(id)
                s.groups[id] = Group(suite: suite(), steps: [])
            }
            s.groups[id]!.steps.append(step)
        }
    }

    /// The suites in the order they first got a step; with `sortedByLine`, each suite's steps are put in the order
    /// of their line (a trace's `seq`) and numbered again, for steps that finish out of order.
    public func result(target: String, duration: Double, kind: RunResult.Kind, sortedByLine: Bool = false) -> RunResult
    {
        let groups = state.withLock { s in s.order.compactMap { s.groups[$0] } }
        let suites = groups.map { group in
            var steps = group.steps
            if sortedByLine {
                steps.sort { $0.mark.line < $1.mark.line }
                for i in steps.indices { steps[i].index = i }
            }
            return SuiteResult(suite: group.suite, steps: steps, duration: steps.reduce(0) { $0 + $1.duration })
        }
        return RunResult(suites: suites, duration: duration, target: target, kind: kind)
    }
}
