/// What the flow checker needs to know about the applications in the trace.
public struct FlowCheckConfiguration: Sendable {
    /// Application codes of applications in restricted mode (personal data only from the backend).
    public var restrictedApplicationCodes: Set<String>
    /// Application codes whose profile also restricts *access* to personal data (no M7 from the app, D8); by
    /// default the reference's `conform-restricted-access-app-code`.
    public var accessRestrictedApplicationCodes: Set<String> = ["conform-restricted-access-app-code"]
    /// Application codes of applications in JWT mode.
    public var jwtApplicationCodes: Set<String>
    /// Application codes known up front; codes seen as `App <code>` on mobile calls are learned as well.
    public var applicationCodes: Set<String>
    /// pushRegIds registered before the trace starts (for traces that begin mid-session).
    public var registeredBefore: Set<String>
    /// Checks a JWT's signature for an application code; `nil` leaves signatures unchecked.
    public var verifyJWTSignature: (@Sendable (_ token: String, _ applicationCode: String) -> Bool)?
    /// Rules to skip, by id.
    public var disabledRules: Set<String>

    public init(
        restrictedApplicationCodes: Set<String> = ["conform-restricted-app-code"],
        jwtApplicationCodes: Set<String> = ["conform-jwt-app-code"],
        applicationCodes: Set<String> = [
            "conform-app-code", "conform-jwt-app-code", "conform-restricted-app-code",
            "conform-restricted-access-app-code",
        ],
        registeredBefore: Set<String> = [], verifyJWTSignature: (@Sendable (String, String) -> Bool)? = nil,
        disabledRules: Set<String> = []
    ) {
        self.restrictedApplicationCodes = restrictedApplicationCodes
        self.jwtApplicationCodes = jwtApplicationCodes
        self.applicationCodes = applicationCodes
        self.registeredBefore = registeredBefore
        self.verifyJWTSignature = verifyJWTSignature
        self.disabledRules = disabledRules
    }

    /// The reference implementation's four applications (default, jwt, restricted, restricted-access).
    public static let reference = FlowCheckConfiguration()
}
