import ConformCore
import ConformCrypto
import Foundation

/// An `Authorization` header value split into the schemes the flow uses.
public enum Authorization: Sendable, Hashable {
    case missing
    case app(String)
    case bearer(String)
    case other(String)

    /// The scheme and secret of a header value; a missing or blank one is ``missing``.
    public init(_ value: String?) {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
            self = .missing
            return
        }
        let parts = value.split(separator: " ", maxSplits: 1)
        let secret = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        switch parts[0].lowercased() {
        case "app": self = .app(secret)
        case "bearer": self = .bearer(secret)
        default: self = .other(value)
        }
    }

    /// The application code of an `App` value.
    public var applicationCode: String? {
        if case .app(let code) = self { return code }
        return nil
    }
}

/// The claims of a JWT, decoded from base64url without checking the signature.
public struct JWTClaims: Sendable, Hashable {
    /// The claims object.
    public var claims: JSONValue

    /// The claims of `token`, or `nil` when it is not a JWT whose claims are a JSON object.
    public init?(token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])).map({ Data($0) }),
            let value = try? JSONValue.parse(data),
            case .object = value
        else { return nil }
        claims = value
    }

    /// The `sub` claim.
    public var subject: String? { claims["sub"]?.stringValue }
}
