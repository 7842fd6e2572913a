import ConformCore
import ConformCrypto
import Foundation

/// An `Authorization` header value split into the schemes the flow uses.
enum Authorization: Sendable, Hashable {
    case missing
    case app(String)
    case bearer(String)
    case other(String)

    init(_ value: String?) {
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

    var applicationCode: String? {
        if case .app(let code) = self { return code }
        return nil
    }
}

/// The claims of a JWT, decoded from base64url without checking the signature.
struct JWTClaims: Sendable, Hashable {
    var claims: JSONValue

    init?(token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])).map({ Data($0) }),
            let value = try? JSONValue.parse(data),
            case .object = value
        else { return nil }
        claims = value
    }

    var subject: String? { claims["sub"]?.stringValue }
}
