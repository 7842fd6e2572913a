import ConformCore
import ConformReport

extension Runner {
    /// `result` of a run that sent the suites' public default credentials (`names`) to a live implementation: when
    /// most of the steps that were judged failed on a 401 or 403 answer, those steps could not run (they say which
    /// variable to give), so the run is COULD NOT RUN for that cause instead of DOES NOT CONFORM. A run where the
    /// refusals are not the most (an implementation that accepts the defaults and refuses one call) keeps its
    /// verdicts.
    public static func refusingDefaultCredentials(_ result: RunResult, names: [String]) -> RunResult {
        let counts = result.counts
        let judged = (counts[.pass] ?? 0) + (counts[.fail] ?? 0) + (counts[.assumptionNotMet] ?? 0)
        func refused(_ step: StepResult) -> Int? {
            guard step.verdict == .fail || step.verdict == .assumptionNotMet,
                let code = step.response?.status.code, code == 401 || code == 403
            else { return nil }
            return code
        }
        let refusals = result.eachStep.reduce(0) { $0 + (refused($1) == nil ? 0 : 1) }
        guard refusals > 0, refusals * 2 > judged else { return result }
        let variables = names.sorted()
        let listed = variables.map { "'\($0)'" }.joined(separator: ", ")
        let give = variables.map { "CONFORM_VAR_\($0) or --var \($0)=…" }.joined(separator: "; ")
        var out = result
        for s in out.suites.indices {
            for i in out.suites[s].steps.indices {
                guard let code = refused(out.suites[s].steps[i]) else { continue }
                out.suites[s].steps[i].verdict = .error
                out.suites[s].steps[i].errors.append(
                    StepError(
                        .credentialsRefused,
                        "credentials refused: \(code) for \(refusals) of \(judged) judged steps while the suites sent "
                            + "their public default for \(listed) (the embedded reference's); give it with \(give)",
                        fields: ["status": String(code), "variables": variables.joined(separator: ",")]))
            }
        }
        return out
    }
}
