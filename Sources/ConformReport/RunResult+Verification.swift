extension RunResult {
    /// What `conform verify` found of a certification bundle: the reports of the run it judged again are titled by
    /// it ("Verification — VERIFIED certifiable, CONFORMS"), never as a conformance run of their own.
    public struct Verification: Sendable, Hashable {
        /// What the verification found.
        public enum Finding: Sendable, Hashable {
            /// Every file is as the manifest says and every report follows from the log; the run is certifiable.
            case certifiable
            /// As intact, but the run is partial (its reasons are the result's ``RunResult/certifiability``).
            case partial
            /// A file or a report is not what the run wrote: what was found, in a few words.
            case tampered(String)
            /// The bundle is intact but its run could not be judged again: why.
            case notVerified(String)

            /// How the JSON report names it: `certifiable`, `partial`, `tampered`, `not verified`.
            public var word: String {
                switch self {
                case .certifiable: "certifiable"
                case .partial: "partial"
                case .tampered: "tampered"
                case .notVerified: "not verified"
                }
            }
        }

        public var finding: Finding
        /// The bundle's directory as it was given.
        public var bundle: String
        /// Whether `--allow-partial` accepted a partial run.
        public var partialAccepted: Bool
        /// What was found in detail, one line each (the file tampered with, each report's differences).
        public var details: [String]

        public init(_ finding: Finding, bundle: String, partialAccepted: Bool = false, details: [String] = []) {
            self.finding = finding
            self.bundle = bundle
            self.partialAccepted = partialAccepted
            self.details = details
        }

        /// The verification in words, with the verdict of `result` (the run judged again) when it was verified:
        /// `VERIFIED certifiable, CONFORMS`, `VERIFIED partial (shard 1/2 of the plan, not merged), CONFORMS`,
        /// `TAMPERED (a report does not follow from the bundle's log)`.
        public func outcome(of result: RunResult) -> String {
            switch finding {
            case .certifiable: return "VERIFIED certifiable, \(result.outcome)"
            case .partial:
                let reasons = result.certifiability?.reasons ?? []
                let why =
                    reasons.isEmpty ? "the report does not say what the run covered" : reasons.joined(separator: "; ")
                return "VERIFIED partial (\(why)), \(result.outcome)"
                    + (partialAccepted ? "; accepted with --allow-partial" : "; no certificate")
            case .tampered(let what): return "TAMPERED (\(what))"
            case .notVerified(let why): return "NOT VERIFIED (\(why))"
            }
        }

        /// The verdict the verification is shown as: a bundle tampered with or not verified is an error whatever
        /// its run said, a run that does not conform fails, a partial one is amber, a certifiable conforming one
        /// passes.
        public func verdict(of result: RunResult) -> Verdict {
            switch finding {
            case .tampered, .notVerified: .error
            case .partial: result.status == .mismatch ? .fail : .assumptionNotMet
            case .certifiable:
                switch result.status {
                case .conforms: .pass
                case .mismatch: .fail
                default: .error
                }
            }
        }
    }

    /// The result's verdict in its command's words, whatever verified it: "Conformance run — CONFORMS".
    public var commandHeadline: String { "\(command.subject) — \(outcome)" }
}
