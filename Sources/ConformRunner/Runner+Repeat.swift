import ConformCore
import ConformReport

extension Runner {
    /// Plays `plan` `times` times, one repetition after the other, and returns one result: each step with the
    /// worst verdict it had (the result of the first repetition that gave it), and the steps whose verdict changed
    /// as ``RunResult/flaky``. With `plan.failFast`, a repetition with a failure is the last.
    ///
    /// `repetition` is told each repetition's result as it ends, for progress; no ``RunEvent`` is emitted.
    public func run(
        _ plan: RunPlan, times: Int, repetition: @Sendable (Int, RunResult) -> Void = { _, _ in }
    ) async -> RunResult {
        var combined: RunResult?
        var verdicts: [[[Verdict]]] = []  // [suite][step][repetition]
        var duration = 0.0
        var played = 0
        for n in 1...max(1, times) {
            let result = await run(plan)
            played = n
            duration += result.duration
            repetition(n, result)
            guard var best = combined else {
                combined = result
                verdicts = result.suites.map { $0.steps.map { [$0.verdict] } }
                if plan.failFast && result.exitCode != 0 { break } else { continue }
            }
            for (s, suite) in result.suites.enumerated() where s < best.suites.count {
                for (i, step) in suite.steps.enumerated() where i < best.suites[s].steps.count {
                    verdicts[s][i].append(step.verdict)
                    if step.verdict > best.suites[s].steps[i].verdict { best.suites[s].steps[i] = step }
                }
            }
            best.contactedOrigins = Set(best.contactedOrigins).union(result.contactedOrigins).sorted()
            combined = best
            if plan.failFast && result.exitCode != 0 { break }
        }
        guard var out = combined else { return await run(plan) }
        out.duration = duration
        out.repetitions = played
        for (s, suite) in out.suites.enumerated() {
            for (i, step) in suite.steps.enumerated() where Set(verdicts[s][i]).count > 1 {
                out.flaky.append(
                    FlakyStep(
                        suiteID: step.suiteID, flow: step.flow, index: step.index, name: step.name,
                        location: "\(step.file):\(step.mark)", verdicts: verdicts[s][i]))
            }
        }
        return out
    }
}
