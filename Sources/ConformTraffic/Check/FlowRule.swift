/// A client-side rule of the personalization flow; an open set of static members.
public struct FlowRule: Sendable, Hashable, CustomStringConvertible {
    /// Stable id used in reports and configuration, e.g. `registration-first`.
    public var id: String
    /// One sentence saying what the rule requires.
    public var summary: String
    /// How to fix a violation.
    public var help: String

    public init(id: String, summary: String, help: String) {
        self.id = id
        self.summary = summary
        self.help = help
    }

    public var description: String { id }

    public static let registrationFirst = FlowRule(
        id: "registration-first",
        summary: "no user call (M4–M10, M14) before the registration (M1) that issued its pushRegId",
        help: "wait for the registrationUpdated event (step 1) before personalizing or sending user data")
    public static let userSwitch = FlowRule(
        id: "user-switch",
        summary:
            "personalizing a device already personalized to another user uses forceDepersonalize=true or a depersonalize first",
        help:
            "send personalize with forceDepersonalize=true (or 1) when a different user logs in, or depersonalize at logout"
    )
    public static let restrictedPersonalData = FlowRule(
        id: "restricted-personal-data",
        summary: "an application in restricted mode sends no personal-data call (M4, M5, M8) from the app",
        help: "in restricted mode personalize and update the user from your backend (B3, People API) instead")
    public static let jwtSubject = FlowRule(
        id: "jwt-subject",
        summary: "in JWT mode, personal-data calls (M4, M5, M7, M8) carry a Bearer JWT whose sub is the externalUserId",
        help: "supply a JWT from your backend (JwtSupplier) signed for the same externalUserId as the personalize body")
    public static let backendCredentials = FlowRule(
        id: "backend-credentials",
        summary: "backend calls (People, Push) authorize with an API key, never with the application code",
        help: "send `Authorization: App <API key>` from your backend; the application code belongs only in AppCode/from"
    )
    public static let registrationHeader = FlowRule(
        id: "registration-header",
        summary: "every mobile call after registration carries the pushregistrationid header",
        help: "send the device's own pushRegId in the pushregistrationid header on every call after registration")
    public static let personalizeIdentity = FlowRule(
        id: "personalize-identity",
        summary: "personalize carries a non-empty identity (externalUserId, phones or emails)",
        help: "put at least one of externalUserId, phones or emails in userIdentity (identity on the backend API)")

    /// Every built-in rule, in report order.
    public static let all: [FlowRule] = [
        .registrationFirst, .userSwitch, .restrictedPersonalData, .jwtSubject, .backendCredentials, .registrationHeader,
        .personalizeIdentity,
    ]
}

/// One broken rule: which exchange, which flow step, what happened and how to fix it.
public struct FlowViolation: Sendable, Hashable, CustomStringConvertible {
    public var rule: FlowRule
    /// The `seq` of the exchange the violation happened in.
    public var seq: Int
    /// The flow the exchange belongs to (device pushRegId or `backend`).
    public var flow: String
    /// The endpoint id, e.g. `M4`.
    public var endpoint: String
    /// The step of the flow (1…8) the violation breaks.
    public var step: Int
    public var message: String
    public var help: String

    public var description: String {
        "exchange \(seq) (\(endpoint), step \(step), flow \(flow)): error[\(rule.id)]: \(message)\nhelp: \(help)"
    }
}
