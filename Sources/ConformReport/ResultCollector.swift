import ConformCore
import Synchronization

/// Gathers the steps of a command other than a suite run (a replay, a diff, a client check, a mock session, a scan)
/// as they come, grouped, and gives them as a result for the reporters; safe to feed from concurrent tasks.
///
/// Each step added is also handed on as a `stepFinished` event (to a ``Session``'s handler), so the console shows
/// it as it comes.
public final class ResultCollector: Sendable {
    private struct Group {
        var group: ResultGroup
        var steps: [StepResult]
    }

    private struct State {
        var order: [String] = []
        var groups: [String: Group] = [:]
        var passesNotKept = 0
        /// Steps that did not pass, kept so far, and those counted beyond ``maxKeptSteps``, by verdict.
        var kept = 0
        var othersNotKept: [Verdict: Int] = [:]
        /// The retries of the steps not kept, and how many of them were retried.
        var retriesNotKept = (count: 0, steps: 0)
        /// What the result tells once, in the order first seen, with the steps (kept or not) each concerns.
        var notices: [RunNotice] = []
        /// Every step added, kept or not, by verdict.
        var counts: [Verdict: Int] = [:]
    }

    private let state = Mutex(State())
    /// Whether passed steps are kept, or only counted (a long replay whose console needs only their number).
    public let keepsPasses: Bool
    /// With ``keepsPasses`` off, the most steps that did not pass kept in the result; the rest are counted by verdict
    /// (``RunResult/othersNotKept``), so a replay of millions of differing exchanges holds a bounded result. Every
    /// step still goes to `events` as it comes, which is where the console shows it.
    public let maxKeptSteps: Int
    private let events: @Sendable (RunEvent) -> Void

    /// A collector that hands each step to `events` as it is added.
    public init(
        keepsPasses: Bool = true, maxKeptSteps: Int = .max, events: @escaping @Sendable (RunEvent) -> Void = { _ in }
    ) {
        self.keepsPasses = keepsPasses
        self.maxKeptSteps = maxKeptSteps
        self.events = events
    }

    /// Adds `step` to the group with `group`'s id, made from `group` on first use; the step takes the group's id.
    public func add(_ step: StepResult, to group: @autoclosure () -> ResultGroup) {
        let made = group()
        add(step, toGroupWithID: made.id, made: { made })
    }

    /// Adds `step` to the group `id`, which `group` makes only on its first use (a replay adds a step per exchange
    /// to a group per device flow); the step takes the id.
    public func add(_ step: StepResult, toGroupWithID id: String, made group: () -> ResultGroup) {
        var step = step
        step.suiteID = id
        events(.stepFinished(step))
        let notice = step.errors.lazy.compactMap { $0.fields["notice"] }.first
        state.withLock { s in
            s.counts[step.verdict, default: 0] += 1
            if let notice {
                if let i = s.notices.firstIndex(where: { $0.text == notice }) {
                    s.notices[i].steps += 1
                } else {
                    s.notices.append(RunNotice(notice, steps: 1))
                }
            }
            Self.openGroup(id, made: group, in: &s)
            // A group whose steps all passed stays, empty, so that the result still names it.
            if !keepsPasses && (step.verdict == .pass || s.kept >= maxKeptSteps) {
                Self.countNotKept(step.verdict, retries: step.retries, in: &s)
                return
            }
            s.kept += 1
            s.groups[id]!.steps.append(step)
        }
    }

    /// Counts a step that passed in the group `id` without its step being made: for a source whose passed steps
    /// nothing shows (``Session/showsPassedSteps`` is false) and that this collector does not keep. The result and
    /// ``counts`` are what ``add(_:toGroupWithID:made:)`` of the step would have made them; no event is sent.
    public func countPass(retries: Int, toGroupWithID id: String, made group: () -> ResultGroup) {
        precondition(!keepsPasses, "a collector that keeps passed steps needs each step")
        state.withLock { s in
            s.counts[.pass, default: 0] += 1
            Self.openGroup(id, made: group, in: &s)
            Self.countNotKept(.pass, retries: retries, in: &s)
        }
    }

    private static func openGroup(_ id: String, made group: () -> ResultGroup, in s: inout State) {
        guard s.groups[id] == nil else { return }
        s.order.append(id)
        s.groups[id] = Group(group: group(), steps: [])
    }

    private static func countNotKept(_ verdict: Verdict, retries: Int, in s: inout State) {
        if verdict == .pass {
            s.passesNotKept += 1
        } else {
            s.othersNotKept[verdict, default: 0] += 1
        }
        if retries > 0 { s.retriesNotKept = (s.retriesNotKept.count + retries, s.retriesNotKept.steps + 1) }
    }

    /// Every step added so far, kept or not, by verdict: what a command's summary line counts, as its result will.
    public var counts: [Verdict: Int] { state.withLock { $0.counts } }

    /// Adds `step` to the suite with `suite`'s id.
    public func add(_ step: StepResult, to suite: Suite) { add(step, to: ResultGroup(suite)) }

    /// The groups in the order they first got a step; with `sortedByLine`, each group's steps are put in the order
    /// of their line (a trace's `seq`) and numbered again, for steps that finish out of order.
    public func result(
        _ command: RunResult.Command, target: String, duration: Double, sortedByLine: Bool = false
    ) -> RunResult {
        let (groups, passesNotKept, othersNotKept, retriesNotKept, notices) = state.withLock { s in
            (s.order.compactMap { s.groups[$0] }, s.passesNotKept, s.othersNotKept, s.retriesNotKept, s.notices)
        }
        let suites = groups.map { group in
            var steps = group.steps
            if sortedByLine {
                steps.sort { $0.place.mark.line < $1.place.mark.line }
                for i in steps.indices { steps[i].index = i }
            }
            return SuiteResult(group: group.group, steps: steps, duration: steps.reduce(0) { $0 + $1.duration })
        }
        var result = RunResult(command: command, suites: suites, duration: duration, target: target)
        result.passesNotKept = passesNotKept
        result.othersNotKept = othersNotKept
        (result.retriesNotKept, result.retriedStepsNotKept) = retriesNotKept
        result.notices = notices
        return result
    }
}
