import ConformCore
import Foundation

/// Compact JSON Web Tokens signed with HS256 (HMAC-SHA-256); header and claims travel as JSON text.
public enum JWT {
    /// The three parts of a token, decoded but not interpreted.
    public struct Decoded: Sendable, Hashable {
        /// The header as JSON text.
        public var header: String
        /// The claims (payload) as JSON text.
        public var claims: String
        /// The raw signature bytes.
        public var signature: [UInt8]
        /// `base64url(header) + "." + base64url(claims)`, the bytes the signature covers.
        public var signingInput: String
    }

    /// Why a token was refused.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not three base64url parts, or a part is not a JSON object.
        case malformed(String)
        /// The header's `alg` is not `HS256`.
        case unsupportedAlgorithm(String)
        /// The signature does not match the secret.
        case badSignature

        public var description: String {
            switch self {
            case .malformed(let why): "malformed token: \(why)"
            case .unsupportedAlgorithm(let alg): "unsupported algorithm '\(alg)' (only HS256 is accepted)"
            case .badSignature: "signature does not match"
            }
        }
    }

    /// Signs `header` and `claims` (JSON text, used verbatim) with HMAC-SHA-256 under `secret`.
    public static func signHS256(header: String, claims: String, secret: [UInt8]) -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let mac = HMAC.sha256(key: secret, message: Array(input.utf8))
        return input + "." + Base64URL.encode(mac)
    }

    /// Signs `claims` under a standard `{"alg":"HS256","typ":"JWT","kid":…}` header.
    public static func signHS256(claims: String, keyID: String?, secret: [UInt8]) -> String {
        var header = #"{"alg":"HS256","typ":"JWT""#
        if let keyID {
            header += #","kid":"#
            JSONValue.writeString(keyID, into: &header)
        }
        header += "}"
        return signHS256(header: header, claims: claims, secret: secret)
    }

    /// Splits and base64url-decodes a token without checking its signature.
    public static func decode(_ token: String) -> Result<Decoded, Failure> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(.malformed("expected 3 dot-separated parts, found \(parts.count)"))
        }
        guard let headerBytes = Base64URL.decode(String(parts[0])), isJSONObject(headerBytes) else {
            return .failure(.malformed("header is not base64url-encoded JSON object"))
        }
        guard let claimBytes = Base64URL.decode(String(parts[1])), isJSONObject(claimBytes) else {
            return .failure(.malformed("claims are not a base64url-encoded JSON object"))
        }
        guard let signature = Base64URL.decode(String(parts[2])) else {
            return .failure(.malformed("signature is not base64url"))
        }
        return .success(
            Decoded(
                header: String(decoding: headerBytes, as: UTF8.self),
                claims: String(decoding: claimBytes, as: UTF8.self),
                signature: signature, signingInput: parts[0] + "." + parts[1]))
    }

    /// Decodes `token` and checks that `alg` is HS256 and the signature matches `secret` (constant-time compare).
    public static func verifyHS256(token: String, secret: [UInt8]) -> Result<Decoded, Failure> {
        let decoded: Decoded
        switch decode(token) {
        case .success(let d): decoded = d
        case .failure(let f): return .failure(f)
        }
        let alg = headerAlgorithm(decoded.header) ?? ""
        guard alg == "HS256" else { return .failure(.unsupportedAlgorithm(alg)) }
        let expected = HMAC.sha256(key: secret, message: Array(decoded.signingInput.utf8))
        guard ConstantTime.equals(expected, decoded.signature) else { return .failure(.badSignature) }
        return .success(decoded)
    }

    private static func isJSONObject(_ bytes: [UInt8]) -> Bool {
        if case .object? = try? JSONValue.parse(Data(bytes)) { return true }
        return false
    }

    private static func headerAlgorithm(_ header: String) -> String? {
        (try? JSONValue.parse(header))?["alg"]?.stringValue
    }
}
