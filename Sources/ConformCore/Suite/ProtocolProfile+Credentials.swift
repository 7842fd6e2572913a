/// The credentials a protocol's exchanges carry, by role: what a redacted recording names in its metadata, what
/// `check` maps application codes through and what `replay --credential ROLE=VALUE` replaces.
extension ProtocolProfile {
    /// One kind of credential (the application code, the API key), and where an exchange carries it.
    public struct CredentialRole: Sendable, Hashable {
        /// The role's name in metadata and options (`appCode`): letters and digits only.
        public var name: String
        /// What it is, for messages (`application code`).
        public var title: String
        /// Where an exchange carries a value of this role.
        public var places: [Place]

        public init(name: String, title: String, places: [Place]) {
            self.name = name
            self.title = title
            self.places = places
        }

        /// A place in an exchange that holds a credential.
        public enum Place: Sendable, Hashable {
            /// `Authorization: <scheme> <value>` on the paths of the base `base` (any path when `nil`).
            case authorization(scheme: String, base: String?)
            /// A header whose whole value is the credential.
            case header(String)
            /// A claim of a JWT the exchange carries.
            case claim(String)
        }
    }

    /// The role of the credential in `Authorization: <scheme> …` of a request to `path`, among `roles`; `bases`
    /// tell which base the path belongs to.
    public static func credentialRole(
        scheme: String, path: String, in roles: [CredentialRole], bases: [Base]
    ) -> CredentialRole? {
        let base = ProtocolProfile(name: "", bases: bases).baseName(forPath: path)
        return roles.first { role in
            role.places.contains { place in
                guard case .authorization(let s, let b) = place else { return false }
                return s.lowercased() == scheme.lowercased() && (b == nil || b == base)
            }
        }
    }

    /// The role of the credential in the header `name` (compared case-insensitively), among `roles`.
    public static func credentialRole(header name: String, in roles: [CredentialRole]) -> CredentialRole? {
        roles.first { $0.places.contains { $0.headerName == name.lowercased() } }
    }

    /// The role of the credential in the JWT claim `claim`, among `roles`.
    public static func credentialRole(claim: String, in roles: [CredentialRole]) -> CredentialRole? {
        roles.first { $0.places.contains(.claim(claim)) }
    }
}

extension ProtocolProfile.CredentialRole.Place {
    /// The header's name, lower-cased, for a header place.
    var headerName: String? {
        if case .header(let name) = self { return name.lowercased() }
        return nil
    }
}
