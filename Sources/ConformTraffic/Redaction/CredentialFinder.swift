import ConformCore

/// Finds the values of one credential role in requests, where the profile says the role is carried: what a trace
/// holds of the application codes a check is told (in clear, or their pseudonyms in a redacted trace).
public struct CredentialFinder: Sendable {
    public let role: ProtocolProfile.CredentialRole
    let bases: [ProtocolProfile.Base]

    /// The finder of the role named `role` of `profile`, or `nil` when the profile has no such role.
    public init?(profile: ProtocolProfile, role: String) {
        guard let found = profile.redaction.credentialRoles.first(where: { $0.name == role }) else { return nil }
        self.role = found
        self.bases = profile.bases
    }

    /// The finder of the role whose values name an application (``ProtocolProfile/RedactionKeys/applicationRole``).
    public init?(applicationsOf profile: ProtocolProfile) {
        guard let name = profile.redaction.applicationRole else { return nil }
        self.init(profile: profile, role: name)
    }

    /// Every value of the role `request` carries.
    public func values(in request: HTTPRequest) -> [String] {
        var out: [String] = []
        let authorization = request.headerFields["Authorization"].map(Authorization.init) ?? .missing
        for place in role.places {
            switch place {
            case .authorization(let scheme, _):
                guard let value = request.headerFields["Authorization"]?.trimmingCharacters(in: .whitespaces),
                    let space = value.firstIndex(of: " "), value[..<space].lowercased() == scheme.lowercased(),
                    ProtocolProfile.credentialRole(
                        scheme: scheme, path: URLParts(request.url).path, in: [role], bases: bases) != nil
                else { continue }
                out.append(value[value.index(after: space)...].trimmingCharacters(in: .whitespaces))
            case .header(let name):
                if let value = request.headerFields[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
                    out.append(value)
                }
            case .claim(let claim):
                if case .bearer(let token) = authorization, let value = JWTClaims(token: token)?.claims[claim] {
                    if let text = value.stringValue { out.append(text) }
                }
            }
        }
        return out
    }
}
