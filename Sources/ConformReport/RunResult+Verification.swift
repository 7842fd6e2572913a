extension BundleVerification {
    /// The verification in words, with the verdict of `result` (the run judged again) when it was verified:
    /// `VERIFIED certifiable, CONFORMS`, `VERIFIED partial (shard 1/2 of the plan, not merged), CONFORMS; no
    /// certificate`, `TAMPERED (a report does not follow from the bundle's log)`.
    public func outcome(of result: RunResult) -> String {
        let why = reasons.isEmpty ? "" : " (" + reasons.joined(separator: "; ") + ")"
        switch verdict {
        case .certifiable: return "VERIFIED certifiable, \(result.outcome)"
        case .partial:
            return "VERIFIED partial\(why), \(result.outcome)"
                + (acceptedPartial ? "; accepted with --allow-partial" : "; no certificate")
        // What was found in detail follows the first reason, in ``details``.
        case .tampered: return "TAMPERED" + (reasons.first.map { " (\($0))" } ?? "")
        default: return "NOT VERIFIED" + (reasons.first.map { " (\($0))" } ?? "")
        }
    }

    /// The verdict the verification is shown as: a bundle tampered with or not verified is an error whatever its
    /// run said, a run that does not conform fails, a partial one is amber, a certifiable conforming one passes.
    public func verdict(of result: RunResult) -> ConformReport.Verdict {
        switch verdict {
        case .tampered, .notVerified: return .error
        case .partial: return result.status == .mismatch ? .fail : .assumptionNotMet
        default:
            switch result.status {
            case .conforms: return .pass
            case .mismatch: return .fail
            default: return .error
            }
        }
    }

    /// What was found in detail, one line each: past the first reason (the headline's) of a bundle tampered with
    /// or not verified, each thing found; each suite modified from the kit's.
    public var details: [String] {
        var lines: [String] = []
        if verdict == .tampered || verdict == .notVerified { lines += reasons.dropFirst() }
        lines += modifiedSuites.map {
            "modified: \($0.file) (suite \($0.id)) differs from this kit's \($0.kitFile) (\($0.changedLines) lines differ)"
        }
        return lines
    }
}

extension RunResult {
    /// The result's verdict in its command's words, whatever verified it: "Conformance run — CONFORMS".
    public var commandHeadline: String { "\(command.subject) — \(outcome)" }
}
