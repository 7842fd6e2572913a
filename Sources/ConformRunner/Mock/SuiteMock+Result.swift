import ConformCore
import ConformDiagnostics
import ConformReport

extension SuiteMock {
    /// The session as a result for the reporters: every exchange step of the suites passes when a request reached
    /// it and fails when none did, with the request and the answer the mock sent; each request no step accepted is
    /// a failed step of the group `unmatched`, with why the closest step refused it and the 404 it got.
    public func result(target: String, duration: Double) -> RunResult {
        let report = report()
        var suiteResults: [SuiteResult] = []
        for suite in suites {
            var steps: [StepResult] = []
            for flow in suite.flows {
                for (n, step) in flow.steps.enumerated() {
                    guard case .exchange = step.action else { continue }
                    let label = "\(n + 1). \(step.name)"
                    let played = report.matched.first {
                        $0.suiteID == suite.id && $0.flow == flow.name && $0.step == label
                    }
                    var result = StepResult(
                        suiteID: suite.id, flow: flow.name, index: n, name: step.name, file: suite.file,
                        mark: step.mark, spec: step.spec, verdict: played == nil ? .fail : .pass,
                        request: played?.request, response: played?.response, attempts: played == nil ? 0 : 1,
                        check: .clientRequest)
                    if played == nil { result.errors = [StepError(.notPlayed, "no request reached this step")] }
                    steps.append(result)
                }
            }
            suiteResults.append(SuiteResult(suite: suite, steps: steps, duration: 0))
        }
        if !report.unmatched.isEmpty {
            let group = ResultGroup(
                kind: .unmatched, id: "unmatched", title: "Requests no pending step accepted", file: target)
            let steps = report.unmatched.enumerated().map { i, entry in
                let (file, mark) = Self.split(entry.location)
                var step = StepResult(
                    suiteID: group.id, flow: "requests", index: i,
                    name: "\(entry.request.method) \(entry.request.target)", file: file ?? target,
                    mark: mark, spec: SpecReference(), verdict: .fail, request: entry.request, response: entry.response,
                    attempts: 1, check: .clientRequest)
                if entry.step.isEmpty {
                    step.errors = [StepError(.unmatched, "no step of the suites accepts this request")]
                } else {
                    step.errors = [
                        StepError(
                            .unmatched, "closest step: \(entry.suiteID) › \(entry.flow) › \(entry.step)",
                            fields: ["suite": entry.suiteID, "flow": entry.flow, "step": entry.step])
                    ]
                    step.failures = [CheckFailure(severity: .must, mismatches: entry.mismatches)]
                }
                return step
            }
            suiteResults.append(SuiteResult(group: group, steps: steps, duration: 0))
        }
        return RunResult(command: .mock, suites: suiteResults, duration: duration, target: target)
    }

    /// `FILE:LINE:COLUMN` split from the right (a file may hold colons); no file for an empty location.
    static func split(_ location: String) -> (String?, SourceMark) {
        let parts = location.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, let line = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1]) else {
            return (location.isEmpty ? nil : location, SourceMark(line: 0, column: 0))
        }
        return (parts.dropLast(2).joined(separator: ":"), SourceMark(line: line, column: column))
    }
}
