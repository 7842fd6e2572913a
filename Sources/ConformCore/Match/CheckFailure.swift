/// The checks of one severity that did not hold for one step: values that differ from what was expected
/// (``Mismatch``), or rules the traffic or a file broke (``Finding``).
public struct CheckFailure: Sendable, Hashable {
    public var severity: Severity
    /// The decision an `assumed` check rests on.
    public var decision: String?
    public var mismatches: [Mismatch]
    public var findings: [Finding]

    public init(severity: Severity, decision: String? = nil, mismatches: [Mismatch] = [], findings: [Finding] = []) {
        self.severity = severity
        self.decision = decision
        self.mismatches = mismatches
        self.findings = findings
    }

    /// How many things went wrong: each mismatch and each finding counts once.
    public var count: Int { mismatches.count + findings.count }
}

/// A rule broken where it was found: a flow rule a client's traffic broke at a record, a secret a file holds
/// unredacted. Not an expected value against an actual one: the rule says what it requires, the finding what was
/// seen instead, and how to put it right.
public struct Finding: Sendable, Hashable, CustomStringConvertible {
    /// The rule's id (a flow rule's, or the kind of secret).
    public var rule: String
    /// Where it was seen, in words (`exchange 3 (M4), flow pushreg-1`); empty when the step's place says it all.
    public var place: String
    /// What the rule requires.
    public var requirement: String
    /// What was seen instead.
    public var found: String
    /// How to put it right.
    public var help: String

    public init(rule: String, place: String = "", requirement: String, found: String, help: String) {
        (self.rule, self.place, self.requirement, self.found, self.help) = (rule, place, requirement, found, help)
    }

    /// `rule at place`, the heading reports give the finding.
    public var heading: String { place.isEmpty ? rule : "\(rule) at \(place)" }

    public var description: String { "\(heading): \(found) (requires: \(requirement); help: \(help))" }
}
