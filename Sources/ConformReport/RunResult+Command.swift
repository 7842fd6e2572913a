extension RunResult {
    /// Which command a result comes from: every report titles itself by it, and its verdict reads in its words.
    public enum Command: String, Sendable, Hashable, CaseIterable {
        /// `conform run` (and `merge`, which rebuilds a run from its shards).
        case run
        /// `conform replay`: recorded requests sent again, each answer compared with the recorded one.
        case replay
        /// `conform diff`: the same exchanges against two implementations.
        case diff
        /// `conform check`, `record --check`, `serve --check`: a client's traffic against the flow's rules.
        case check
        /// `conform mock`: Conform played the server of a suite to a client.
        case mock
        /// `conform scan`: files searched for credentials that were not redacted.
        case scan
        /// `conform explore`: generated sequences played against the target and the reference in lock-step.
        case explore

        /// How the verdicts add up to an exit status: replays and diffs compare, the rest judge.
        public var kind: Kind {
            switch self {
            case .replay, .diff: .comparison
            case .run, .check, .mock, .scan, .explore: .conformance
            }
        }

        /// What reports call the command's result.
        public var subject: String {
            switch self {
            case .run: "Conformance run"
            case .replay: "Replay"
            case .diff: "Differential"
            case .check: "Client check"
            case .mock: "Mock session"
            case .scan: "Secret scan"
            case .explore: "Exploration"
            }
        }

        /// The kind of check the command's steps are, unless a step says otherwise.
        public var check: StepResult.Check {
            switch self {
            case .run, .explore: .suiteExpectation
            case .mock: .clientRequest
            case .replay, .diff: .replayDifference
            case .check: .flowRule
            case .scan: .secretFinding
            }
        }
    }

    /// How many findings the result holds: the mismatches of its failed steps (a violation of a rule, a secret
    /// found, a difference); for a differential, the steps that differ.
    public var findingCount: Int {
        if command == .diff { return counts[.fail, default: 0] }
        var n = 0
        for suite in suites {
            for step in suite.steps where step.verdict == .fail {
                n += max(1, step.failures.reduce(0) { $0 + $1.count })
            }
        }
        return n
    }

    /// The verdict in the command's words: `CONFORMS`, `SAME BEHAVIOUR`, `3 of 16 exchanges differ`, `2 violations`, …
    public var outcome: String {
        let status = self.status
        if status == .cannotRun { return command == .run || command == .explore ? "COULD NOT RUN" : "CANNOT JUDGE" }
        let mismatch = status == .mismatch
        switch command {
        case .run: return status.words
        case .replay: return mismatch ? "DIFFERENT BEHAVIOUR" : "SAME BEHAVIOUR"
        case .diff:
            let n = findingCount
            return mismatch
                ? "\(n) of \(command.stepNoun.counted(stepCount)) \(n == 1 ? "differs" : "differ")"
                : "the two implementations behave the same"
        case .check: return Noun("violation").counted(mismatch ? findingCount : 0)
        case .mock: return mismatch ? "the client did not follow the suite" : "the client followed the suite"
        case .scan: return Noun("finding").counted(mismatch ? findingCount : 0)
        case .explore: return mismatch ? "DIVERGES FROM THE REFERENCE" : "NO DIVERGENCE FOUND"
        }
    }

    /// The title every report gives the result: "Replay — SAME BEHAVIOUR"; a run judged again by `conform verify`
    /// is titled by the verification ("Verification — VERIFIED certifiable, CONFORMS").
    public var headline: String {
        if let verification { return "Verification — " + verification.outcome(of: self) }
        return commandHeadline
    }

    /// The rules a client check found broken, in the order of the flow, each with how many violations it had.
    public var violatedRules: [(rule: String, violations: Int)] {
        guard command == .check else { return [] }
        var out: [(rule: String, violations: Int)] = []
        for step in steps where step.verdict == .fail && step.check == .flowRule {
            let rule = String(step.name.prefix { $0 != ":" })
            let n = max(1, step.failures.reduce(0) { $0 + $1.count })
            if let i = out.firstIndex(where: { $0.rule == rule }) {
                out[i].violations += n
            } else {
                out.append((rule, n))
            }
        }
        return out
    }

    /// The verdicts the result's reports count, in report order: those the command can give, and any other the
    /// result holds (a count is never left out).
    public var reportedVerdicts: [Verdict] {
        let counts = self.counts
        return Verdict.reportOrder.filter { command.verdicts.contains($0) || counts[$0, default: 0] > 0 }
    }
}

extension RunResult.Command {
    /// What a report's heading says before the target: "Conform certification report for builtin".
    public var kicker: String {
        switch self {
        case .run: "Conform certification report for"
        case .replay: "Conform replay against"
        case .diff: "Conform differential of"
        case .check: "Conform client check of"
        case .mock: "Conform mock session on"
        case .scan: "Conform secret scan of"
        case .explore: "Conform exploration of"
        }
    }

    /// The verdicts the command's steps can have: only a suite run has assumptions, only a check of traffic has
    /// rules the traffic never exercised, only runs and comparisons skip steps.
    public var verdicts: [Verdict] {
        switch self {
        case .run, .explore: [.pass, .fail, .assumptionNotMet, .skipped, .error]
        case .replay, .diff: [.pass, .fail, .skipped, .error]
        case .check: [.pass, .fail, .notExercised, .error]
        case .mock, .scan: [.pass, .fail, .error]
        }
    }

    /// What the command's steps are called: "40 steps", "16 exchanges", "12 checks".
    public var stepNoun: Noun {
        switch self {
        case .run, .mock, .explore: Noun("step")
        case .replay, .diff: Noun("exchange")
        case .check, .scan: Noun("check")
        }
    }
}

extension RunResult {
    /// What the result's groups are called: their kind's name when they are all of one kind ("3 suites",
    /// "2 device flows", "7 flow steps", "5 files"), else "groups".
    public var groupNoun: Noun {
        let kinds = Set(suites.map(\.group.kind))
        guard kinds.count == 1, let kind = kinds.first, kind != .unmatched else { return Noun("group") }
        return Noun(kind.rawValue)
    }
}

/// A noun a report counts with.
public struct Noun: Sendable, Hashable {
    public var one: String
    public var many: String

    public init(_ one: String, many: String? = nil) {
        self.one = one
        self.many = many ?? one + "s"
    }

    /// `n` of it: "1 suite", "3 suites".
    public func counted(_ n: Int) -> String { "\(n) \(n == 1 ? one : many)" }
}
