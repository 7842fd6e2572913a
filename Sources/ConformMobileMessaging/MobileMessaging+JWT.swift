import ConformCore
import ConformCrypto
import Foundation

/// The profile's template function: signing JWTs for user-data authorization (D9).
extension MobileMessaging {
    /// `{{ jwt sub=user secret=jwtSecret kid=jwtKeyId app=jwtAppCode ttl=3600 }}`: an HS256 token as the SDK's JWT supplier gives it.
    public static let jwt = TemplateFunction(
        summary: "an HS256 JWT: sub, secret (hex), kid, app (infobip-api-key), ttl seconds (negative: expired)",
        credentialArguments: ["secret", "app"]
    ) {
        _, named throws(TemplateError) in
        guard let sub = named["sub"]?.text else {
            throw TemplateError(
                message: "jwt needs sub=<externalUserId>",
                help: "write {{ jwt sub=user secret=jwtSecret kid=jwtKeyId app=jwtAppCode }}")
        }
        guard let secretHex = named["secret"]?.text, let secret = Hex.decode(secretHex) else {
            throw TemplateError(
                message: "jwt needs secret=<hex key>", help: "pass the application profile's JWT secret key in hex")
        }
        let ttl = try jwtTTL(named["ttl"])
        let now = Int(Date().timeIntervalSince1970)
        var claims = JSONObject()
        claims["typ"] = "Bearer"
        claims["sub"] = .string(sub)
        if let app = named["app"]?.text { claims["infobip-api-key"] = .string(app) }
        claims["iat"] = .int(now)
        claims["exp"] = .int(now + ttl)
        claims["jti"] = .string(UUID().uuidString.lowercased())
        return .string(
            JWT.signHS256(claims: JSONValue.object(claims).serialized(), keyID: named["kid"]?.text, secret: secret))
    } recognize: { token, named in
        recognizeJWT(token, named)
    }

    /// How far a `ttl` may reach: ten years either way, so `exp` never overflows and never wraps to a valid token.
    static let ttlRange = -315_360_000...315_360_000

    /// The `ttl` argument in seconds (3600 when absent); anything else than an integer in `ttlRange` is an error,
    /// never a silent default.
    static func jwtTTL(_ value: JSONValue?) throws(TemplateError) -> Int {
        let parsed: Int?
        switch value {
        case nil: return 3600
        case .int(let i)?: parsed = ttlRange.contains(i) ? i : nil
        case .double(let d)?: parsed = IntegerText.exactly(d, in: ttlRange)
        case .string(let s)?: parsed = IntegerText.parse(s, in: ttlRange)
        case let other?: parsed = IntegerText.parse(other.text, in: ttlRange)
        }
        guard let parsed else {
            throw TemplateError(
                message: "jwt ttl must be a whole number of seconds from \(ttlRange.lowerBound) to "
                    + "\(ttlRange.upperBound) (ten years), got '\(value?.text ?? "")'",
                help: "write e.g. ttl=3600, or ttl=-60 for an expired token")
        }
        return parsed
    }

    /// Server role: a token this `jwt` call could have made: signed with `secret`, the same `kid`, `app` and
    /// `sub` (found when not known yet), expired exactly when `ttl` is negative.
    static func recognizeJWT(_ token: String, _ named: [String: JSONValue?]) -> [String: JSONValue]? {
        guard case .success(let decoded) = JWT.decode(token),
            let header = try? JSONValue.parse(decoded.header), let claims = try? JSONValue.parse(decoded.claims)
        else { return nil }
        if case .some(.some(let secretHex)) = named["secret"] {
            guard let secret = Hex.decode(secretHex.text), case .success = JWT.verifyHS256(token: token, secret: secret)
            else { return nil }
        }
        if case .some(.some(let kid)) = named["kid"], header["kid"]?.text != kid.text { return nil }
        if case .some(.some(let app)) = named["app"], claims["infobip-api-key"]?.text != app.text { return nil }
        var ttl = 3600
        if case .some(.some(let value)) = named["ttl"] {
            guard let given = try? jwtTTL(value) else { return nil }
            ttl = given
        }
        let expired = (claims["exp"]?.numberValue ?? 0) <= Date().timeIntervalSince1970
        guard expired == (ttl < 0), let sub = claims["sub"] else { return nil }
        switch named["sub"] {
        case .some(.some(let expected)): return expected.text == sub.text ? [:] : nil
        case .some(.none): return ["sub": sub]
        case .none: return [:]
        }
    }
}
