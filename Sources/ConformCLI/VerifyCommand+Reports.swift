import ConformReport

extension VerifyCommand {
    /// Writes `verify`'s reports once the verification is known, titled by it: the run judged again (or nothing, when
    /// the bundle could not be read) with `verification`. Returns `cannotRun` when a report could not be written.
    static func writeReports(
        _ requests: [ReportTarget], of judged: RunResult?, verification: RunResult.Verification, io: CommandIO
    ) async -> Int32? {
        guard !requests.isEmpty else { return nil }
        var result = judged ?? RunResult(command: .run, suites: [], duration: 0, target: verification.bundle)
        result.verification = verification
        let outcome = await Session(console: nil, reports: requests).run(result)
        guard outcome.problems.isEmpty else {
            for problem in outcome.problems { io.report(problem) }
            return ConformCommand.ExitCode.cannotRun
        }
        return nil
    }
}
