import ConformCore
import ConformDiagnostics
import ConformReport

/// Replayed and diffed exchanges as steps of a result, so every reporter renders them: one group per device flow,
/// one step per exchange, located at the trace record `TRACE#SEQ` (``StepResult/Place/record(seq:)``).
///
/// Only exchanges that did not pass keep their request and response, so a long replay's result stays small.
public enum ReplayResults {
    /// The group of the device flow `flow` of the trace `trace`.
    public static func group(flow: String, trace: String, title: String) -> ResultGroup {
        ResultGroup(kind: .deviceFlow, id: groupID(flow: flow), title: "\(title), device flow \(flow)", file: trace)
    }

    /// The id of the group of the device flow `flow`, which its steps carry from the start.
    public static func groupID(flow: String) -> String { "flow \(flow)" }

    /// The records of `trace` that could not be read, as one step that cannot be judged: what they held was sent to
    /// neither side, so the behaviour cannot be called the same.
    public static func unreadable(_ count: Int, trace: String) -> SuiteResult {
        let group = ResultGroup(
            kind: .trace, id: "unreadable \(trace)", title: "Records of \(trace) that could not be read", file: trace)
        var step = StepResult(
            suiteID: group.id, flow: trace, index: 0,
            name: "\(count) unreadable record\(count == 1 ? "" : "s") skipped", file: trace,
            place: .none, spec: SpecReference(), verdict: .skipped, attempts: 0,
            check: .replayDifference)
        step.errors = [
            StepError(
                .cannotJudge, "cannot judge: what they held was not replayed (see the warnings)",
                fields: ["unreadable": String(count)])
        ]
        return SuiteResult(group: group, steps: [step], duration: 0)
    }

    /// Hands ``unreadable(_:trace:)``'s step to `add`, when any record could not be read.
    public static func addUnreadable(_ count: Int, trace: String, to add: (StepResult, ResultGroup) -> Void) {
        guard count > 0 else { return }
        let unread = unreadable(count, trace: trace)
        for step in unread.steps { add(step, unread.group) }
    }

    /// A replayed exchange: passed, failed with its differences (the recorded answer is what was expected), an
    /// error when no answer came, or skipped when the recording cannot judge it.
    public static func step(_ outcome: ReplayOutcome, trace: String) -> StepResult {
        var step = StepResult(
            suiteID: groupID(flow: outcome.flow), flow: outcome.flow, index: 0,
            name: "exchange \(outcome.seq): \(outcome.request.method) \(outcome.request.target)", file: trace,
            place: .record(seq: outcome.seq), spec: SpecReference(), verdict: .pass, attempts: 1,
            duration: outcome.actual?.timing?.total ?? 0, check: .replayDifference)
        if let cannotJudge = outcome.cannotJudge {
            step.verdict = .skipped
            step.errors = [StepError(.cannotJudge, "cannot judge: \(cannotJudge)", fields: ["cause": cannotJudge])]
        } else if let error = outcome.transportError {
            step.verdict = .error
            var fields = ["cause": error]
            if let notice = outcome.notice { fields["notice"] = notice }
            step.errors = [StepError(.replay, error, fields: fields)]
        } else if !outcome.differences.isEmpty {
            step.verdict = .fail
            step.failures = [CheckFailure(severity: .must, mismatches: outcome.differences)]
        }
        if step.verdict != .pass {
            step.request = outcome.request
            step.response = outcome.actual
        }
        step.retries = outcome.retries
        return step
    }

    /// An exchange sent to two implementations (`outcome`, with A's answer as the recorded one): passed when both
    /// answered alike, failed with A's answer as what was expected and B's as what came, could not be judged when
    /// nothing was compared.
    public static func difference(_ outcome: ReplayOutcome, trace: String) -> StepResult {
        let request = outcome.recorded ?? outcome.request
        var mismatches = outcome.differences
        if let error = outcome.transportError {
            mismatches.insert(Mismatch(path: "response", expected: "A answered", actual: "B failed: \(error)"), at: 0)
        }
        var step = StepResult(
            suiteID: groupID(flow: outcome.flow), flow: outcome.flow, index: 0,
            name: "exchange \(outcome.seq): \(request.method) \(request.target)",
            file: trace, place: .record(seq: outcome.seq), spec: SpecReference(),
            verdict: mismatches.isEmpty ? .pass : .fail,
            failures: mismatches.isEmpty ? [] : [CheckFailure(severity: .must, mismatches: mismatches)], attempts: 1,
            check: .replayDifference)
        step.retries = outcome.retries
        if let notice = outcome.notice, !step.failures.isEmpty {
            // The difference is that a side got no answer, for a cause the run tells once.
            step.errors = [
                StepError(.replay, "no answer (see the warning below the steps)", fields: ["notice": notice])
            ]
        }
        if let cannotJudge = outcome.cannotJudge {
            // Nothing was compared: neither the same nor a difference.
            (step.verdict, step.failures) = (.skipped, [])
            step.errors = [StepError(.cannotJudge, "cannot judge: \(cannotJudge)", fields: ["cause": cannotJudge])]
        }
        return step
    }
}
