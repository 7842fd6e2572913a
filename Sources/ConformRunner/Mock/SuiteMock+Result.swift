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
                    let played = report.matched.first {
                        $0.suiteID == suite.id && $0.flow == flow.name && $0.stepIndex == n
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
                var step = StepResult(
                    suiteID: group.id, flow: "requests", index: i,
                    name: "\(entry.request.method) \(entry.request.target)",
                    file: entry.file.isEmpty ? target : entry.file,
                    place: entry.file.isEmpty ? .none : .source(entry.mark), spec: SpecReference(), verdict: .fail,
                    request: entry.request, response: entry.response,
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
}
