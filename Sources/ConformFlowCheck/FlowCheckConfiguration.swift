import ConformCore
import ConformCrypto

/// What the flow checker needs to know: the protocol's endpoints and rules, and the applications in the trace.
public struct FlowCheckConfiguration: Sendable {
    /// Which endpoint a request is (the profile's ``ProtocolProfile/endpoints``); a request of none is not judged.
    public var endpoints: ProtocolProfile.EndpointCatalogue
    /// The rules judged, in report order, worded as the profile words them (``ProtocolProfile/flowRules``): the
    /// checker judges only these, each by its kind; a judgment no rule here names is not made.
    public var rules: [FlowRule]
    /// How the protocol names an installation: the request header a call names its own in
    /// (``ProtocolProfile/FlowKeys/requestHeader``) and the answer's member a registration names the new one in
    /// (``ProtocolProfile/FlowKeys/answerMember``).
    public var flows: ProtocolProfile.FlowKeys
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
    /// The profile's public values (the reference's documented codes), which findings name as they are.
    public var publicValues: Set<String>

    /// The reference implementation's four applications (default, jwt, restricted, restricted-access) unless told
    /// otherwise, with the endpoints, rules and flow keys of `profile`.
    public init(
        profile: ProtocolProfile, restrictedApplicationCodes: Set<String> = ["conform-restricted-app-code"],
        jwtApplicationCodes: Set<String> = ["conform-jwt-app-code"],
        applicationCodes: Set<String> = [
            "conform-app-code", "conform-jwt-app-code", "conform-restricted-app-code",
            "conform-restricted-access-app-code",
        ],
        registeredBefore: Set<String> = [], verifyJWTSignature: (@Sendable (String, String) -> Bool)? = nil,
        disabledRules: Set<String> = []
    ) {
        self.endpoints = profile.endpoints
        self.rules = profile.flowRules
        self.flows = profile.flows
        self.restrictedApplicationCodes = restrictedApplicationCodes
        self.jwtApplicationCodes = jwtApplicationCodes
        self.applicationCodes = applicationCodes
        self.registeredBefore = registeredBefore
        self.verifyJWTSignature = verifyJWTSignature
        self.disabledRules = disabledRules
        self.publicValues = Set(profile.redaction.publicValues)
    }

    /// The rules a check judges and reports: ``rules`` without the disabled ones.
    public var judgedRules: [FlowRule] { rules.filter { !disabledRules.contains($0.id) } }

    /// An application code as findings name it: a public one or a pseudonym as it is, any other masked as reports
    /// mask credentials, so a check of unredacted traffic puts no live code in a log or a report.
    public func shown(_ code: String) -> String {
        publicValues.contains(code) ? code : ApplicationCodes.shown(code)
    }

    /// Checks HS256 signatures with the given secrets, by application code (e.g. the reference's jwt application).
    public mutating func verifyJWTs(secrets: [String: [UInt8]]) {
        verifyJWTSignature = { token, code in
            guard let secret = secrets[code] else { return true }
            if case .success = JWT.verifyHS256(token: token, secret: secret) { return true }
            return false
        }
    }
}
