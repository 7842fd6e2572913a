import ConformCore
import ConformDiagnostics
import ConformReport

/// A secret scan as a result, so every reporter renders it: one group per file read, one failed step per finding
/// at its `file:line:col`, or one passed step for a file without any.
public enum ScanResults {
    /// The result of scanning `files` (each with its findings, paths as the user should see them).
    public static func result(
        _ files: [(file: String, findings: [SecretFinding])], target: String, duration: Double = 0
    ) -> RunResult {
        let suites = files.map { file, findings in
            let group = ResultGroup(kind: .file, id: file, title: "Secret scan of \(file)", file: file)
            let origin = StepResult.Origin(
                suiteID: group.id, flow: "secrets", file: file, spec: SpecReference(), check: .secretFinding)
            guard !findings.isEmpty else {
                let clean = StepResult(
                    origin: origin, index: 0, name: "no unredacted secret", mark: SourceMark(line: 1, column: 1),
                    spec: SpecReference(), verdict: .pass, attempts: 1)
                return SuiteResult(group: group, steps: [clean], duration: 0)
            }
            let steps = findings.enumerated().map { i, finding in
                StepResult(
                    origin: origin, index: i, name: "unredacted \(finding.kind.rawValue)",
                    mark: SourceMark(line: finding.line, column: finding.column), spec: SpecReference(),
                    verdict: .fail,
                    failures: [
                        CheckFailure(
                            severity: .must,
                            findings: [
                                Finding(
                                    rule: finding.kind.rawValue, requirement: "redacted",
                                    found: "unredacted '\(finding.excerpt)'", help: finding.help)
                            ])
                    ], attempts: 1)
            }
            return SuiteResult(group: group, steps: steps, duration: 0)
        }
        return RunResult(command: .scan, suites: suites, duration: duration, target: target)
    }
}
