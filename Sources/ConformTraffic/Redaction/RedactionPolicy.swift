import ConformCore

/// What to replace by pseudonyms before an exchange reaches the disk; on by default.
public struct RedactionPolicy: Sendable, Hashable {
    /// Whether to redact at all.
    public var enabled: Bool
    /// Extra header names whose whole value is a secret (compared case-insensitively).
    public var headers: [String]
    /// Extra JSON paths (wildcards allowed) whose values are secrets, in request and response bodies.
    public var jsonPaths: [JSONPathPattern]
    /// Extra regular expressions; every match in a URL, header value or body text is replaced.
    public var patterns: [String]
    /// JSON member names holding phone numbers.
    public var phoneFields: [String]
    /// JSON member names holding push service tokens or other device tokens.
    public var tokenFields: [String]
    /// Replace email addresses anywhere in text.
    public var emailsInText: Bool
    /// Replace `+`-prefixed international phone numbers anywhere in text.
    public var phonesInText: Bool
    /// Values that are public and never replaced (e.g. the reference implementation's documented test credentials).
    public var keep: [String]

    public init(
        enabled: Bool = true, headers: [String] = [], jsonPaths: [JSONPathPattern] = [], patterns: [String] = [],
        phoneFields: [String] = RedactionPolicy.defaultPhoneFields,
        tokenFields: [String] = RedactionPolicy.defaultTokenFields, emailsInText: Bool = true,
        phonesInText: Bool = true, keep: [String] = RedactionPolicy.referenceCredentials
    ) {
        self.enabled = enabled
        self.headers = headers
        self.jsonPaths = jsonPaths
        self.patterns = patterns
        self.phoneFields = phoneFields
        self.tokenFields = tokenFields
        self.emailsInText = emailsInText
        self.phonesInText = phonesInText
        self.keep = keep
    }

    /// Redaction of every built-in secret kind; the reference implementation's public test credentials are kept.
    public static let `default` = RedactionPolicy()
    /// No redaction at all.
    public static let disabled = RedactionPolicy(enabled: false)

    public static let defaultPhoneFields = ["number", "phoneNumber", "msisdn", "phone", "phones", "mobile", "gsm"]
    /// Query parameters whose values are credentials (compared case-insensitively).
    public static let secretQueryKeys: Set<String> = [
        "apikey", "api_key", "api-key", "access_token", "id_token", "refresh_token", "client_secret", "token",
    ]
    /// Headers whose whole value is a credential, besides `Authorization`.
    public static let secretHeaders: Set<String> = ["x-api-key", "api-key", "apikey", "x-auth-token"]
    public static let defaultTokenFields = ["pushServiceToken", "cloudToken", "deviceToken", "registrationToken"]
    /// The documented credentials of the built-in reference applications: public, so not secrets.
    public static let referenceCredentials = [
        "conform-app-code", "conform-api-key", "conform-jwt-app-code", "conform-jwt-api-key",
        "conform-restricted-app-code", "conform-restricted-api-key", "conform-restricted-access-app-code",
        "conform-restricted-access-api-key",
    ]

    /// One line per active rule, written to `meta.json`.
    var summary: [String] {
        var lines = [
            "header Authorization: App/Basic values and Bearer JWTs (scheme kept)",
            "header AppCode, applicationcode, " + RedactionPolicy.secretHeaders.sorted().joined(separator: ", "),
            "header Cookie, Set-Cookie: every cookie value (names and attributes kept)",
            "query parameters " + RedactionPolicy.secretQueryKeys.sorted().joined(separator: ", ")
                + "; identifier when type=PHONE",
        ]
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
