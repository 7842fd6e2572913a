import ConformCore
import ConformCrypto
import ConformTraffic
import Foundation

/// A Bearer JWT the recorder redacted (header `kid` `conform-redacted`): its claims are kept (redacted where they
/// held secrets or personal data), its signature is a pseudonym. No target accepts it as it stands; a replay either
/// re-signs it with the key the user gives (``RedactedTokenSigner``, below every report) or cannot judge the
/// exchanges that carry it.
public struct RedactedToken: Sendable, Hashable {
    /// The claims as recorded.
    public var claims: JSONObject
    /// The `kid` of the token the recorder redacted, when it kept it.
    public var recordedKeyID: String?

    /// What a replay without the key says, once: the steps that carry such a token are not judged.
    public static let cannotReplay = "cannot replay a redacted token (pass --credential jwtSecret=…)"
    /// The header member a redacted token keeps the original `kid` in (a key's name, not a secret).
    public static let recordedKeyIDMember = "recordedKid"
    /// Claims that are times (seconds since 1970), moved together when a token is re-dated.
    public static let timeClaims = ["exp", "iat", "nbf", "auth_time"]

    /// The redacted token the `Authorization: Bearer` of `request` carries, or `nil` when it carries none.
    public init?(_ request: HTTPRequest) {
        guard let token = Self.bearer(request) else { return nil }
        self.init(token: token)
    }

    /// `token` read as a redacted one, or `nil` when it is not (a live token, or not a JWT).
    public init?(token: String) {
        guard case .success(let decoded) = JWT.decode(token), let header = try? JSONValue.parse(decoded.header),
            header["kid"]?.stringValue == Pseudonymizer.jwtKeyID,
            case .object(let claims)? = try? JSONValue.parse(decoded.claims)
        else { return nil }
        self.claims = claims
        self.recordedKeyID = header[Self.recordedKeyIDMember]?.stringValue
    }

    /// The value of `request`'s `Authorization: Bearer`, when it has the shape of a JWT.
    static func bearer(_ request: HTTPRequest) -> String? {
        guard let field = request.headerFields["Authorization"] else { return nil }
        // Most requests carry another scheme: told apart on the bytes, before any copy, when the value starts with a
        // visible ASCII character (which trimming keeps).
        if let first = field.utf8.first, first > 0x20, first < 0x7F,
            !field.utf8.prefix(7).elementsEqual("bearer ".utf8, by: { $0 | 0x20 == $1 })
        {
            return nil
        }
        let value = field.trimmingWhitespace
        guard value.count > 7, value.prefix(7).lowercased() == "bearer "
        else { return nil }
        let token = value.dropFirst(7).trimmingWhitespace
        return token.split(separator: ".", omittingEmptySubsequences: false).count == 3 ? token : nil
    }

    /// Whether the token had expired when it was sent (`exp` at or before `sentAt`): a refusal it explains.
    public func expired(at sentAt: Date) -> Bool {
        guard let exp = claims["exp"]?.numberValue else { return false }
        return exp <= sentAt.timeIntervalSince1970
    }

    /// The token with its time claims moved by `seconds` (the replay's time minus the recording's), so it is as
    /// far from expiring, or as long expired, as when it was recorded.
    public func redated(by seconds: Int) -> RedactedToken {
        var out = self
        for name in Self.timeClaims {
            switch claims[name] {
            case .int(let value)?: out.claims[name] = .int(value &+ seconds)
            case .double(let value)?: out.claims[name] = .int(Int(value.rounded()) &+ seconds)
            default: break
            }
        }
        return out
    }

    /// The token still redacted (the pseudonymous header and signature of the recording) with these claims: what the
    /// outcome and every report show.
    public func text() -> String {
        var header = JSONObject()
        header["alg"] = "HS256"
        header["typ"] = "JWT"
        header["kid"] = .string(Pseudonymizer.jwtKeyID)
        if let recordedKeyID { header[Self.recordedKeyIDMember] = .string(recordedKeyID) }
        return Base64URL.encode(Array(JSONValue.object(header).serialized().utf8)) + "."
            + Base64URL.encode(Array(JSONValue.object(claims).serialized().utf8)) + "."
            + Base64URL.encode(Array("unsigned".utf8))
    }

    /// `request` with its Bearer token replaced by `token`.
    public static func replacing(_ token: String, in request: HTTPRequest) -> HTTPRequest {
        var out = request
        out.headerFields["Authorization"] = "Bearer \(token)"
        return out
    }
}

/// Re-signs the redacted tokens of replayed requests with the application's key (`--credential jwtSecret=HEX`,
/// `jwtKeyId=KID`) on their way to the target: the claims as the replay made them, each pseudonym of a credential
/// given with `--credential` replaced by its live value, under the recorded `kid` (or the one given). Above this
/// transport, in the outcomes and reports, the token stays redacted: neither the key nor a live value is seen.
public struct RedactedTokenSigner: TransportDecorator {
    public let inner: any Transport
    let secret: [UInt8]
    let keyID: String?
    let live: [String: String]

    public init(inner: any Transport, secret: [UInt8], keyID: String?, credentials: LiveCredentials) {
        self.inner = inner
        self.secret = secret
        self.keyID = keyID
        self.live = credentials.values
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let token = RedactedToken(request) else { return try await inner.send(request) }
        var claims = token.claims
        for name in claims.keys {
            if case .string(let value)? = claims[name], let live = live[value] { claims[name] = .string(live) }
        }
        let signed = JWT.signHS256(
            claims: JSONValue.object(claims).serialized(), keyID: keyID ?? token.recordedKeyID, secret: secret)
        return try await inner.send(RedactedToken.replacing(signed, in: request))
    }
}
