import ConformCore

/// What `conform verify` concluded about a certification bundle, beyond the run it judged again: the
/// verification's own verdict and why, the suites modified from the kit's (with their diffs), and the signature.
/// Set on the result `verify` reports (``RunResult/verification``), so a page can head with the verification
/// rather than with the run; `nil` for every other command.
public struct BundleVerification: Sendable, Hashable {
    /// The verification's verdict, as the console's last line starts.
    public struct Verdict: Sendable, Hashable, RawRepresentable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Intact, the whole bundled plan, nothing skipped: a certificate (of conformance when the run conforms).
        public static let certifiable = Verdict(rawValue: "VERIFIED certifiable")
        /// Intact, but part of the plan (a shard, a selection, a suite of one's own or modified, steps skipped).
        public static let partial = Verdict(rawValue: "VERIFIED partial")
        /// Intact, but not what was asked: `--key` given and no signature, or the run judged again could not run.
        public static let notVerified = Verdict(rawValue: "NOT VERIFIED")
        /// A file, the signature, a suite or a report is not as the run wrote it.
        public static let tampered = Verdict(rawValue: "TAMPERED")
    }

    /// What the bundle's signature says.
    public enum Signature: Sendable, Hashable {
        case unsigned
        /// A signature is there, but no key was given to check it with.
        case notChecked
        /// The signature verifies with the key of this fingerprint (`SHA256:<hex>`).
        case signed(fingerprint: String)

        /// `unsigned`, `signed, not checked (pass --key)`, `signed by key SHA256:…`.
        public var words: String {
            switch self {
            case .unsigned: "unsigned"
            case .notChecked: "signed, not checked (pass --key)"
            case .signed(let fingerprint): "signed by key \(fingerprint)"
            }
        }
    }

    /// A suite of the bundle that is one of the kit's bundled suites with another text.
    public struct ModifiedSuite: Sendable, Hashable {
        /// The file inside the bundle (`suites/004-02-login.yaml`).
        public var file: String
        public var id: String
        /// The kit's suite it differs from, by file name.
        public var kitFile: String
        /// How many lines differ (removed and added).
        public var changedLines: Int
        /// The unified diff from the kit's text, at most as many lines as `verify` shows, each escaped for a
        /// terminal; `hiddenLines` more were left out.
        public var diff: [String]
        public var hiddenLines: Int

        public init(file: String, id: String, kitFile: String, changedLines: Int, diff: [String], hiddenLines: Int) {
            self.file = file
            self.id = id
            self.kitFile = kitFile
            self.changedLines = changedLines
            self.diff = diff
            self.hiddenLines = hiddenLines
        }
    }

    public var verdict: Verdict
    /// Why, each a short phrase (the certification's partial reasons, the suites modified, what was tampered).
    public var reasons: [String]
    /// A partial bundle accepted with `--allow-partial`.
    public var acceptedPartial: Bool
    public var modifiedSuites: [ModifiedSuite]
    public var signature: Signature
    /// The console's last line, `Verification: …`, without its line feed.
    public var line: String
    /// The bundle's directory as it was given.
    public var bundle = ""

    public init(
        verdict: Verdict, reasons: [String], acceptedPartial: Bool = false, modifiedSuites: [ModifiedSuite] = [],
        signature: Signature, line: String
    ) {
        self.verdict = verdict
        self.reasons = reasons
        self.acceptedPartial = acceptedPartial
        self.modifiedSuites = modifiedSuites
        self.signature = signature
        self.line = line
    }

    /// The `verification` member of the JSON report of `verify`.
    public var json: JSONValue {
        var signed = JSONObject([("state", .string(signatureState))])
        if case .signed(let fingerprint) = signature { signed["fingerprint"] = .string(fingerprint) }
        return [
            "verdict": .string(verdict.rawValue), "reasons": .array(reasons.map { .string($0) }),
            "acceptedPartial": .bool(acceptedPartial), "signature": .object(signed),
            "modifiedSuites": .array(
                modifiedSuites.map {
                    [
                        "file": .string($0.file), "id": .string($0.id), "kitFile": .string($0.kitFile),
                        "changedLines": .int($0.changedLines), "diff": .array($0.diff.map { .string($0) }),
                        "hiddenLines": .int($0.hiddenLines),
                    ]
                }),
            "line": .string(line), "bundle": .string(bundle),
        ]
    }

    /// `unsigned`, `not-checked` or `signed`.
    public var signatureState: String {
        switch signature {
        case .unsigned: "unsigned"
        case .notChecked: "not-checked"
        case .signed: "signed"
        }
    }
}
