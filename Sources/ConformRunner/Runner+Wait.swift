import ConformCore
import ConformReport
import Foundation

extension Runner {
    /// A wait step: the event another flow emits, with its values put in this flow's scope; skipped when the flow
    /// that was to emit it could not run or did not pass, failed when it cannot come.
    func runWait(_ wait: WaitSpec, result: StepResult, flow: String, scope: inout TemplateScope, board: EventBoard)
        async -> StepResult
    {
        var result = result
        let clock = ContinuousClock()
        let start = clock.now
        let source = wait.flow.map { " from flow '\($0)'" } ?? ""
        /// Skips the wait: its event will not come, `why`.
        func skip(because why: String, emitter: String) {
            result.verdict = .skipped
            let reason = "event '\(wait.event)'\(source) will not come: \(why)"
            result.errors = [
                StepError(
                    .skipped, "skipped: \(reason)",
                    fields: ["blockedBy": reason, "event": wait.event, "emitter": emitter])
            ]
        }
        switch await board.wait(for: wait.event, from: wait.flow, waiter: flow, window: wait.timeout) {
        case .success(let emitted):
            for (key, value) in emitted.values where scope[key] == nil { scope[key] = value }
            scope[emitted.flow] = .object(
                JSONObject(emitted.values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
            result.verdict = .pass
        case .failure(.stalled):
            result.verdict = .fail
            let window = DurationText.format(wait.timeout)
            result.errors = [
                StepError(
                    .eventStalled,
                    "event '\(wait.event)'\(source) did not come: no other flow had an exchange under way, started or "
                        + "finished one for \(window) (the wait's window; raise it with 'timeout:' on the wait)",
                    fields: ["event": wait.event, "window": window])
            ]
        case .failure(.couldNotRun(let emitter, let why)):
            skip(because: "flow '\(emitter)' could not run (\(why))", emitter: emitter)
        case .failure(.emitterDidNotPass(let emitter, let why)):
            // The emitter's own failure is the finding: the wait is skipped, naming it, not failed a second time.
            skip(because: "flow '\(emitter)' did not emit it, \(why)", emitter: emitter)
        case .failure(.finishedWithout):
            result.verdict = .fail
            let who = wait.flow.map { "flow '\($0)' finished" } ?? "every other flow finished"
            result.errors = [
                StepError(
                    .eventWillNotCome, "event '\(wait.event)'\(source) will not come: \(who) without emitting it",
                    fields: ["event": wait.event])
            ]
        }
        result.duration = (clock.now - start).inSeconds
        return result
    }
}
