/// What a protocol tells the traffic tools (recording proxy, redaction, secret scan, flow checker): which endpoint
/// a request is, and which parts of an exchange hold its credentials and personal data.
extension ProtocolProfile {
    /// One endpoint of the protocol, as a request to it was classified.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// The endpoint's id in the protocol's reference, e.g. `M4`.
        public var id: String
        /// The name of the base it belongs to (one of the profile's ``ProtocolProfile/bases``).
        public var base: String
        /// The device registration the path names, when it names one.
        public var registrationID: String?
        /// What the protocol says about calls to it, what each call does in the flow among it
        /// (``ProtocolProfile/Trait/registration``, ``ProtocolProfile/Trait/personalize`` and the other roles).
        public var traits: Set<Trait>

        public init(id: String, base: String, registrationID: String? = nil, traits: Set<Trait> = []) {
            self.id = id
            self.base = base
            self.registrationID = registrationID
            self.traits = traits
        }

        public var description: String { id }
    }

    /// Something the protocol says about calls to an endpoint; an open set.
    public struct Trait: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A call that needs the device registered first.
        public static let needsRegistration = Trait(rawValue: "needs-registration")
        /// A call that carries or reveals personal data from the app.
        public static let sendsPersonalData = Trait(rawValue: "sends-personal-data")
        /// A call that needs a user token (`Bearer <JWT>`) when the application authorizes user data with tokens.
        public static let needsUserToken = Trait(rawValue: "needs-user-token")
        /// A call that may carry a user token although it needs none (an inbox read with the user's token).
        public static let acceptsUserToken = Trait(rawValue: "accepts-user-token")
    }

    /// The protocol's endpoints: which one a request is, by effective method and path.
    public struct EndpointCatalogue: Sendable {
        /// The endpoint `request` is, or `nil` when it is none of the protocol's.
        public var classify: @Sendable (_ request: HTTPRequest) -> Endpoint?

        public init(classify: @escaping @Sendable (_ request: HTTPRequest) -> Endpoint?) {
            self.classify = classify
        }

        /// A catalogue that knows no endpoint.
        public static let none = EndpointCatalogue { _ in nil }
    }

    /// Where an exchange of the protocol holds credentials and personal data, beyond what any HTTP exchange holds
    /// (`Authorization`, cookies, `api_key`-style query parameters, emails and `+`-prefixed phone numbers in text).
    public struct RedactionKeys: Sendable, Hashable {
        /// Authorization schemes whose value is a credential of the protocol (`App <application code>`).
        public var credentialSchemes: [String]
        /// Headers whose whole value is a credential (`AppCode`).
        public var credentialHeaders: [String]
        /// Headers that carry a digest of an application code (the hex of its SHA-256, cut short), replaced by hex
        /// of the same length unless the code is public.
        public var codeDigestHeaders: [String]
        /// JWT claims whose value is a credential (`infobip-api-key`).
        public var credentialClaims: [String]
        /// JSON member names holding phone numbers.
        public var phoneFields: [String]
        /// JSON member names holding push service tokens or other device tokens.
        public var tokenFields: [String]
        /// A lookup by phone in the query (`type=PHONE&identifier=…`): the parameter that names the kind, the kind
        /// that means a phone (compared case-insensitively), and the parameter that holds the phone.
        public var phoneLookup: PhoneLookup?
        /// Values that are public and never replaced (the reference implementation's documented test credentials).
        public var publicValues: [String]
        /// The credentials by role, and where each is carried: what a redacted recording's metadata names.
        public var credentialRoles: [CredentialRole]
        /// The role whose values name an application (what `check --restricted`, `--restricted-access` and `--jwt`
        /// take), one of ``credentialRoles``.
        public var applicationRole: String?

        /// See ``RedactionKeys/phoneLookup``.
        public struct PhoneLookup: Sendable, Hashable {
            public var kindParameter: String
            public var phoneKind: String
            public var identifierParameter: String

            public init(kindParameter: String, phoneKind: String, identifierParameter: String) {
                self.kindParameter = kindParameter
                self.phoneKind = phoneKind
                self.identifierParameter = identifierParameter
            }
        }

        public init(
            credentialSchemes: [String] = [], credentialHeaders: [String] = [], codeDigestHeaders: [String] = [],
            credentialClaims: [String] = [], phoneFields: [String] = [], tokenFields: [String] = [],
            phoneLookup: PhoneLookup? = nil, publicValues: [String] = [], credentialRoles: [CredentialRole] = [],
            applicationRole: String? = nil
        ) {
            self.credentialSchemes = credentialSchemes
            self.credentialHeaders = credentialHeaders
            self.codeDigestHeaders = codeDigestHeaders
            self.credentialClaims = credentialClaims
            self.phoneFields = phoneFields
            self.tokenFields = tokenFields
            self.phoneLookup = phoneLookup
            self.publicValues = publicValues
            self.credentialRoles = credentialRoles
            self.applicationRole = applicationRole
        }

        /// A protocol that adds nothing to what every HTTP exchange is redacted for.
        public static let none = RedactionKeys()
    }

    /// The name of the base a request path belongs to: the first base with a prefix of the path, else the first
    /// with no prefixes (the one that serves the rest); `nil` for a profile with no bases.
    public func baseName(forPath path: String) -> String? {
        bases.first { base in base.pathPrefixes.contains { path.hasPrefix($0) } }?.name
            ?? bases.first { $0.pathPrefixes.isEmpty }?.name
    }
}
