/// A step of the personalization flow, named as the suites name theirs (`step:` in `suites/*.yaml`).
public struct FlowStep: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The suites' step name, e.g. `3-logout`.
    public var name: String

    public init(_ name: String) { self.name = name }

    public var description: String { name }

    public static func < (a: FlowStep, b: FlowStep) -> Bool { a.name < b.name }

    public static let registration = FlowStep("1-registration")
    public static let login = FlowStep("2-login")
    public static let logout = FlowStep("3-logout")
    public static let sessions = FlowStep("4-sessions")
    public static let multiDevice = FlowStep("5-multi-device")
    public static let primary = FlowStep("6-primary")
    public static let backendOnly = FlowStep("7-backend-only")
    public static let hygiene = FlowStep("8-hygiene")

    /// Every step, in flow order.
    public static let all: [FlowStep] = [
        .registration, .login, .logout, .sessions, .multiDevice, .primary, .backendOnly, .hygiene,
    ]
}
