import ConformCore
import ConformDiagnostics
import ConformReport
import ConformTraffic

/// Checks of client traffic as a result, so every reporter renders them: one group per flow step, one step per
/// checked trace and rule, located at the trace record that breaks it, with that exchange.
public enum FlowCheckReport {
    /// One checked trace: its path as given, and what the checker found in it.
    public struct Trace: Sendable, Hashable {
        public var path: String
        public var violations: [FlowViolation]
        /// What the trace could not show either way (an obligation still open at its end).
        public var notes: [String]
        /// Exchanges the rules cannot be judged on (a body or the response missing from the trace), the first
        /// ``TraceTally/maxNamedIncomplete`` named.
        public var incomplete: [TraceTally.Incomplete]
        /// How many exchanges cannot be judged, named or not.
        public var incompleteCount: Int
        /// Lines or entries that could not be read, whose content was not checked.
        public var unreadable: Int
        /// How many exchanges the trace held.
        public var exchanges: Int
        /// How many app events it held (recorded, or from an events file).
        public var events: Int
        /// The ids of the rules the trace gave something to judge (``FlowChecker/exercised``); a broken rule is
        /// exercised whether listed or not.
        public var exercised: Set<String>
        /// Whether the trace held a registration, a user call or a backend call (``FlowChecker/showedFlow``); a
        /// trace that held none cannot be judged.
        public var showedFlow: Bool
        /// Where each exercised rule was judged (``FlowChecker/judged``): a rule that held is located at its first
        /// record, with how many records it was judged at.
        public var judged: [String: FlowChecker.RuleJudgement]

        /// Whether the trace shows the flow, or is empty (an empty trace is CANNOT JUDGE on its own).
        var showsFlow: Bool { showedFlow || (exchanges == 0 && events == 0) }

        public init(
            path: String, violations: [FlowViolation], notes: [String], exercised: Set<String>,
            incomplete: [TraceTally.Incomplete] = [], incompleteCount: Int? = nil, unreadable: Int = 0,
            exchanges: Int, events: Int = 0, showedFlow: Bool, judged: [String: FlowChecker.RuleJudgement] = [:]
        ) {
            self.showedFlow = showedFlow
            self.judged = judged
            self.path = path
            self.violations = violations
            self.notes = notes
            self.exercised = exercised.union(violations.map(\.rule.id))
            self.events = events
            self.incomplete = incomplete
            self.incompleteCount = max(incompleteCount ?? incomplete.count, incomplete.count)
            self.unreadable = unreadable
            self.exchanges = exchanges
        }
    }

    /// A rule fails with one mismatch per violation, passes for a trace that exercised it without breaking it, and is
    /// `not exercised` (never a pass) for a trace that gave it nothing to judge. The rules are grouped by their flow
    /// steps, in step order. The step is located at `TRACE#SEQ`, the first exchange or event that breaks the rule
    /// (`TRACE#1` when none does), and keeps that exchange; its spec is the line of the flow the rule rests on. A
    /// trace's notes go with its first rule. A check whose traces exercised no rule at all (or that had no rule to
    /// judge) cannot judge (``RunStatus``).
    public static func result(_ traces: [Trace], rules: [FlowRule], duration: Double = 0) -> RunResult {
        var suites: [SuiteResult] = []
        for step in Set(rules.map(\.step)).sorted() {
            let stepRules = rules.filter { $0.step == step }
            guard !stepRules.isEmpty else { continue }
            let id = "check-\(step.name)"
            let group = ResultGroup(
                kind: .flowStep, id: id, title: "Client traffic, flow step \(step.name)", step: step.name,
                spec: SpecReference(section: "flow step \(step.name.prefix { $0.isNumber })"),
                file: traces.map(\.path).joined(separator: ", "))
            var steps: [StepResult] = []
            for trace in traces {
                for (index, rule) in stepRules.enumerated() {
                    let broken = trace.violations.filter { $0.rule.id == rule.id }
                    var result = StepResult(
                        suiteID: id, flow: trace.path, index: index, name: "\(rule.id): \(rule.summary)",
                        file: trace.path, place: broken.first.map { .record(seq: $0.seq) } ?? .none,
                        spec: SpecReference(section: rule.seed),
                        verdict: !broken.isEmpty ? .fail : trace.exercised.contains(rule.id) ? .pass : .notExercised,
                        check: .flowRule)
                    if result.verdict == .pass, let judged = trace.judged[rule.id] {
                        // Where it held, for `check --verbose` and the reports: a pass says what it rests on.
                        result.place = .record(seq: judged.first)
                        let records = Noun("record").counted(judged.count)
                        result.errors = [
                            StepError(
                                .judgedAt,
                                "held at \(records), "
                                    + (judged.count == 1 ? "#\(judged.first)" : "#\(judged.first) to #\(judged.last)"),
                                fields: ["rule": rule.id, "first": String(judged.first), "count": String(judged.count)])
                        ]
                    }
                    if result.verdict == .notExercised {
                        result.errors = [
                            StepError(
                                .notExercised,
                                trace.exchanges == 0 && trace.events == 0
                                    ? "not exercised: the traffic holds no exchange and no app event"
                                    : rule.notExercisedReason, fields: ["rule": rule.id])
                        ]
                    }
                    if !broken.isEmpty {
                        result.failures = [CheckFailure(severity: .must, findings: broken.map(finding))]
                        if let exchange = broken.first?.exchange {
                            result.request = exchange.request
                            result.response =
                                exchange.omitted.contains(where: { $0.hasPrefix("response:") })
                                ? nil : exchange.response
                        }
                    }
                    steps.append(result)
                }
            }
            suites.append(SuiteResult(group: group, steps: steps, duration: 0))
        }
        attachNotes(traces, to: &suites)
        for trace in traces where trace.incompleteCount > 0 || trace.unreadable > 0 || !trace.showsFlow {
            suites.append(unjudged(trace))
        }
        var result = RunResult(
            command: .check, suites: suites, duration: duration, target: traces.map(\.path).joined(separator: ", "))
        let exercised = traces.reduce(into: Set<String>()) { $0.formUnion($1.exercised) }
        result.checkedTraffic = RunResult.CheckedTraffic(
            exchanges: traces.reduce(0) { $0 + $1.exchanges }, appEvents: traces.reduce(0) { $0 + $1.events },
            rules: rules.count, rulesExercised: rules.filter { exercised.contains($0.id) }.count)
        return result
    }

    /// What a trace could not show: an error step per exchange without what the rules need, and one for the
    /// records that could not be read; a violation found beside them may follow from them, so the check cannot judge.
    static func unjudged(_ trace: Trace) -> SuiteResult {
        let group = ResultGroup(
            kind: .trace, id: "unjudged \(trace.path)", title: "What \(trace.path) cannot show", file: trace.path)
        let origin = StepResult.Origin(
            suiteID: group.id, flow: trace.path, file: trace.path, spec: SpecReference(), check: .flowRule)
        func cannotJudge(
            _ index: Int, _ name: String, place: StepResult.Place = .none, _ cause: String,
            fields: [String: String] = [:]
        ) -> StepResult {
            var step = StepResult(
                origin: origin, index: index, name: name, place: place, spec: SpecReference(), verdict: .error,
                attempts: 1)
            step.errors = [StepError(.cannotJudge, "cannot judge: " + cause, fields: fields)]
            return step
        }
        var steps = trace.incomplete.enumerated().map { i, e in
            cannotJudge(
                i, "exchange \(e.seq): \(e.method) \(e.target)", place: .record(seq: e.seq), e.omitted,
                fields: ["cause": e.omitted])
        }
        if !trace.showsFlow {
            steps.append(
                cannotJudge(
                    steps.count, "no traffic of the flow",
                    "the traffic holds no registration, no user call and no backend call, so it shows "
                        + "nothing of the flow; record the app from its first start, or check the whole recording"))
        }
        let unnamed = trace.incompleteCount - trace.incomplete.count
        if unnamed > 0 {
            steps.append(
                cannotJudge(
                    steps.count, "\(unnamed) more exchanges without what the rules need",
                    "\(unnamed) more exchanges lack a body or a response", fields: ["incomplete": String(unnamed)]))
        }
        if trace.unreadable > 0 {
            let n = trace.unreadable
            steps.append(
                cannotJudge(
                    steps.count, "\(n) unreadable record\(n == 1 ? "" : "s") skipped",
                    "what the unreadable records held was not checked (see the warnings)",
                    fields: ["unreadable": String(n)]))
        }
        return SuiteResult(group: group, steps: steps, duration: 0)
    }

    /// The violation as a finding: the rule, the exchange or event that broke it, what was seen, and the help.
    static func finding(_ violation: FlowViolation) -> Finding {
        let what =
            violation.endpoint.hasPrefix("event:")
            ? "event \(violation.seq) (\(violation.endpoint.dropFirst(6)))"
            : "exchange \(violation.seq) (\(violation.endpoint))"
        return Finding(
            rule: violation.rule.id, place: "\(what), flow \(violation.flow)", requirement: violation.rule.summary,
            found: violation.message, help: violation.help)
    }

    /// Puts each trace's notes on the error text of its first rule, so reports show them next to the verdicts.
    static func attachNotes(_ traces: [Trace], to suites: inout [SuiteResult]) {
        for trace in traces where !trace.notes.isEmpty {
            guard let s = suites.firstIndex(where: { $0.steps.contains { $0.flow == trace.path } }),
                let i = suites[s].steps.firstIndex(where: { $0.flow == trace.path })
            else { continue }
            suites[s].steps[i].errors.append(
                StepError(.note, trace.notes.map { "note: \($0)" }.joined(separator: "\n")))
        }
    }
}
