import ConformCore

/// What to replace by pseudonyms before an exchange reaches the disk; on by default.
///
/// What every HTTP exchange holds (`Authorization`, cookies, credential query parameters and headers, emails and
/// phone numbers in text) is redacted whatever the protocol; a profile adds its own places
/// (``ProtocolProfile/redaction``: Mobile Messaging's `AppCode` header, `infobip-api-key` claim, token members).
public struct RedactionPolicy: Sendable, Hashable {
    /// Whether to redact at all.
    public var enabled: Bool
    /// Where the protocol's exchanges hold credentials and personal data, beyond what every exchange holds.
    public var protocolKeys: ProtocolProfile.RedactionKeys
    /// The protocol's bases, which tell the role of a credential by the path it is sent to (an application code on
    /// the mobile API, an API key on the backend's).
    public var bases: [ProtocolProfile.Base]
    /// Extra header names whose whole value is a secret (compared case-insensitively).
    public var headers: [String]
    /// Extra JSON paths (wildcards allowed) whose values are secrets, in request and response bodies.
    public var jsonPaths: [JSONPathPattern]
    /// Extra regular expressions; every match in a URL, header value or body text is replaced.
    public var patterns: [String]
    /// JSON member names holding phone numbers: the protocol's and any added.
    public var phoneFields: [String]
    /// JSON member names holding push service tokens or other device tokens: the protocol's and any added.
    public var tokenFields: [String]
    /// Replace email addresses anywhere in text.
    public var emailsInText: Bool
    /// Replace `+`-prefixed international phone numbers anywhere in text.
    public var phonesInText: Bool
    /// Values that are public and never replaced: the protocol's (the reference implementation's documented test
    /// credentials) and any added.
    public var keep: [String]

    /// The policy for exchanges of `profile`; `phoneFields`, `tokenFields` and `keep` add to the profile's.
    public init(
        profile: ProtocolProfile = .none, enabled: Bool = true, headers: [String] = [],
        jsonPaths: [JSONPathPattern] = [], patterns: [String] = [], phoneFields: [String] = [],
        tokenFields: [String] = [], emailsInText: Bool = true, phonesInText: Bool = true, keep: [String] = []
    ) {
        self.enabled = enabled
        self.protocolKeys = profile.redaction
        self.bases = profile.bases
        self.headers = headers
        self.jsonPaths = jsonPaths
        self.patterns = patterns
        self.phoneFields = profile.redaction.phoneFields + phoneFields
        self.tokenFields = profile.redaction.tokenFields + tokenFields
        self.emailsInText = emailsInText
        self.phonesInText = phonesInText
        self.keep = profile.redaction.publicValues + keep
    }

    /// Redaction of what every HTTP exchange holds, for a protocol that adds nothing; a recording of a protocol
    /// takes its profile's (``init(profile:enabled:headers:jsonPaths:patterns:phoneFields:tokenFields:emailsInText:phonesInText:keep:)``).
    public static let `default` = RedactionPolicy()
    /// No redaction at all.
    public static let disabled = RedactionPolicy(enabled: false)

    /// Query parameters whose values are credentials (compared case-insensitively).
    public static let secretQueryKeys = ProtocolProfile.secretQueryKeys
    /// Headers whose whole value is a credential, besides `Authorization`.
    public static let secretHeaders = ProtocolProfile.secretHeaders

    /// One line per active rule, written to `meta.json`.
    var summary: [String] {
        let keys = protocolKeys
        let schemes = (keys.credentialSchemes + ["Basic"]).joined(separator: "/")
        let lookup = keys.phoneLookup.map {
            "; \($0.identifierParameter) when \($0.kindParameter)=\($0.phoneKind.uppercased())"
        }
        var lines = [
            "header Authorization: \(schemes) values and Bearer JWTs (scheme kept)",
            "header "
                + (keys.credentialHeaders + keys.codeDigestHeaders + RedactionPolicy.secretHeaders.sorted()).joined(
                    separator: ", "),
            "header Cookie, Set-Cookie: every cookie value (names and attributes kept)",
            "query parameters " + RedactionPolicy.secretQueryKeys.sorted().joined(separator: ", ") + (lookup ?? ""),
        ]
        if !keys.credentialClaims.isEmpty {
            lines.append("JWT claims " + keys.credentialClaims.joined(separator: ", "))
        }
        lines += headers.map { "header \($0)" }
        if emailsInText { lines.append("emails anywhere") }
        if phonesInText { lines.append("+international phone numbers anywhere") }
        lines.append("phone fields: " + phoneFields.joined(separator: ", "))
        lines.append("token fields: " + tokenFields.joined(separator: ", "))
        lines += jsonPaths.map { "json path \($0.description)" }
        lines += patterns.map { "pattern /\($0)/" }
        if !keep.isEmpty { lines.append("kept as public: " + keep.joined(separator: ", ")) }
        return lines
    }
}
