import Foundation

/// The places of a request that carry a credential: those of every HTTP exchange and those the profile names.
extension ProtocolProfile {
    /// Headers whose whole value is a credential in any HTTP exchange, besides `Authorization`, lower-cased.
    public static let secretHeaders: Set<String> = ["x-api-key", "api-key", "apikey", "x-auth-token"]
    /// Query parameters whose value is a credential in any HTTP exchange, lower-cased.
    public static let secretQueryKeys: Set<String> = [
        "apikey", "api_key", "api-key", "access_token", "id_token", "refresh_token", "client_secret", "token",
    ]

    /// Whether a request header named `name` (any case) carries a credential: `Authorization`,
    /// `Proxy-Authorization`, `Cookie`, ``secretHeaders``, and the profile's credential and code digest headers.
    public func carriesCredential(header name: String) -> Bool {
        let lower = name.lowercased()
        if ["authorization", "proxy-authorization", "cookie"].contains(lower) || Self.secretHeaders.contains(lower) {
            return true
        }
        return (redaction.credentialHeaders + redaction.codeDigestHeaders).contains { $0.lowercased() == lower }
    }

    /// Whether a query parameter named `name` (any case, percent-encoded or not) carries a credential
    /// (``secretQueryKeys``).
    public func carriesCredential(query name: String) -> Bool {
        Self.secretQueryKeys.contains((name.removingPercentEncoding ?? name).lowercased())
    }
}

extension ProtocolProfile {
    /// The protocol's own headers whose whole value is a credential or a code's digest (``RedactionKeys``), which
    /// reports hide beside `Authorization` and cookies.
    public var credentialHeaderNames: [String] { redaction.credentialHeaders + redaction.codeDigestHeaders }
}
