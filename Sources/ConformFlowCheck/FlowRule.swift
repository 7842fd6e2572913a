import ConformDiagnostics
import ConformTraffic

/// A client-side rule of the personalization flow; an open set of static members.
public struct FlowRule: Sendable, Hashable, CustomStringConvertible {
    /// Stable id used in reports and configuration, e.g. `registration-first`.
    public var id: String
    /// The flow step the rule certifies, named as the suites name it.
    public var step: FlowStep
    /// The line of the certified flow (the guide that `docs/flow.md` retells) the rule rests on, quoted.
    public var seed: String
    /// One sentence saying what the rule requires.
    public var summary: String
    /// How to fix a violation.
    public var help: String
    /// What a trace must hold for the rule to judge anything ("user call (M4–M10, M14)"): without it the rule is
    /// not exercised, which is never a pass.
    public var exercisedBy: String

    public init(id: String, step: FlowStep, seed: String, summary: String, help: String, exercisedBy: String = "") {
        self.id = id
        self.step = step
        self.seed = seed
        self.summary = summary
        self.help = help
        self.exercisedBy = exercisedBy
    }

    /// Why the rule has no verdict on a trace that never exercised it.
    public var notExercisedReason: String {
        "not exercised: the traffic holds no " + (exercisedBy.isEmpty ? "record this rule judges" : exercisedBy)
    }

    public var description: String { id }

    /// Every built-in rule, in report order.
    public static let all: [FlowRule] = [
        .registrationFirst, .userSwitch, .restrictedPersonalData, .jwtSubject, .backendCredentials, .registrationHeader,
        .personalizeIdentity, .loginPersonalize, .logoutDepersonalize, .sessionExpiryDepersonalize,
        .appUpdatePersonalize, .primaryPush, .depersonalizeRetry, .personalizeRetry, .registrationRecovery,
        .updateKeepsRegistration, .syncKeepsDelivered,
    ]
}

/// One broken rule: which exchange (or app event), which flow step, what happened and how to fix it.
public struct FlowViolation: Sendable, Hashable, CustomStringConvertible {
    public var rule: FlowRule
    /// The `seq` of the exchange (or event) the violation happened in.
    public var seq: Int
    /// The flow the exchange belongs to (device pushRegId or `backend`).
    public var flow: String
    /// The endpoint id (e.g. `M4`), or `event:<kind>` when an app event proved the violation.
    public var endpoint: String
    /// The step of the flow the violation breaks (the rule's step).
    public var step: FlowStep
    public var message: String
    public var help: String
    /// The exchange that broke the rule, when the violation was found on it (reports show it).
    public var exchange: RecordedExchange? = nil

    /// The violation as a `flow.violation` diagnostic naming the exchange or event, coded with the rule's id.
    public var diagnostic: Diagnostic { diagnostic(file: nil) }

    /// The diagnostic with the recording it was found in.
    public func diagnostic(file: String?) -> Diagnostic {
        let what =
            endpoint.hasPrefix("event:") ? "event \(seq) (\(endpoint.dropFirst(6))" : "exchange \(seq) (\(endpoint)"
        return Diagnostic(
            .flowViolation, file: file, context: "\(what), step \(step), flow \(flow))", code: rule.id,
            message: message, help: help)
    }

    public var description: String { diagnostic.rendered(sourceLine: nil) }
}
