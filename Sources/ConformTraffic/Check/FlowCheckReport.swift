import ConformCore
import ConformDiagnostics
import ConformReport

/// Checks of client traffic as a run result, so every run reporter (JUnit, JSON, HTML) renders them as it renders a
/// suite run: one suite per flow step, one step per checked trace and rule.
public enum FlowCheckReport {
    /// One checked trace: its path as given, and what the checker found in it.
    public struct Trace: Sendable, Hashable {
        public var path: String
        public var violations: [FlowViolation]
        /// What the trace could not show either way (an obligation still open at its end).
        public var notes: [String]

        public init(path: String, violations: [FlowViolation], notes: [String]) {
            self.path = path
            self.violations = violations
            self.notes = notes
        }
    }

    /// A rule passes for a trace that never breaks it and fails with one mismatch per violation otherwise. The step's
    /// location is `TRACE:SEQ:1`, the `seq` of the first exchange or event that breaks the rule (`TRACE:1:1` when
    /// none does); its spec is the line of the flow the rule rests on. A trace's notes go with its first rule.
    public static func result(_ traces: [Trace], rules: [FlowRule], duration: Double = 0) -> RunResult {
        var suites: [SuiteResult] = []
        for step in FlowStep.all {
            let stepRules = rules.filter { $0.step == step }
            guard !stepRules.isEmpty else { continue }
            let id = "check-\(step.name)"
            let suite = Suite(
                id: id, title: "Client traffic, flow step \(step.name)", step: step.name,
                spec: SpecReference(section: "flow step \(step.name.prefix { $0.isNumber })"), flows: [],
                file: traces.map(\.path).joined(separator: ", "))
            var steps: [StepResult] = []
            for trace in traces {
                for (index, rule) in stepRules.enumerated() {
                    let broken = trace.violations.filter { $0.rule.id == rule.id }
                    var result = StepResult(
                        suiteID: id, flow: trace.path, index: index, name: "\(rule.id): \(rule.summary)",
                        file: trace.path, mark: SourceMark(line: broken.first?.seq ?? 1, column: 1),
                        spec: SpecReference(section: rule.seed), verdict: broken.isEmpty ? .pass : .fail)
                    if !broken.isEmpty {
                        result.failures = [CheckFailure(severity: .must, mismatches: broken.map(mismatch))]
                    }
                    steps.append(result)
                }
            }
            suites.append(SuiteResult(suite: suite, steps: steps, duration: 0))
        }
        attachNotes(traces, to: &suites)
        return RunResult(suites: suites, duration: duration, target: traces.map(\.path).joined(separator: ", "))
    }

    static func mismatch(_ violation: FlowViolation) -> Mismatch {
        let what =
            violation.endpoint.hasPrefix("event:")
            ? "event \(violation.seq) (\(violation.endpoint.dropFirst(6)))"
            : "exchange \(violation.seq) (\(violation.endpoint))"
        return Mismatch(
            path: "\(what), flow \(violation.flow)", expected: violation.rule.summary, actual: violation.message,
            note: "help: \(violation.help)")
    }

    /// Puts each trace's notes on the error text of its first rule, so reports show them next to the verdicts.
    static func attachNotes(_ traces: [Trace], to suites: inout [SuiteResult]) {
        for trace in traces where !trace.notes.isEmpty {
            guard let s = suites.firstIndex(where: { $0.steps.contains { $0.flow == trace.path } }),
                let i = suites[s].steps.firstIndex(where: { $0.flow == trace.path })
            else { continue }
            suites[s].steps[i].errors = [
                StepError(.note, trace.notes.map { "note: \($0)" }.joined(separator: "\n"))
            ]
        }
    }
}
