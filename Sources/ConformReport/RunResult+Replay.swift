extension RunResult {
    /// Hands the finished result to reporters as if it had just run: start, every suite, finish (a merged run, a
    /// repeated run's worst verdicts, a bundle's shards judged again).
    public func replay(to events: (RunEvent) -> Void) {
        events(.runStarted(RunPlanSummary(suiteCount: suites.count, stepCount: stepCount, target: target)))
        for suite in suites { events(.suiteFinished(suite)) }
        events(.runFinished(self))
    }
}
