import ConformCore
import ConformCrypto
import Foundation

/// Template functions that need more than the core: signing JWTs for user-data authorization (D9).
public enum RunnerFunctions {
    public static var all: [String: TemplateFunction] { ["jwt": jwt] }

    /// `{{ jwt sub=user secret=jwtSecret kid=jwtKeyId app=jwtAppCode ttl=3600 }}`: an HS256 token as the SDK's JWT supplier gives it.
    public static let jwt = TemplateFunction(
        summary: "an HS256 JWT: sub, secret (hex), kid, app (infobip-api-key), ttl seconds (negative: expired)"
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
        let ttl: Int
        switch named["ttl"] {
        case .int(let i)?: ttl = i
        case .string(let s)?: ttl = Int(s) ?? 3600
        default: ttl = 3600
        }
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
    }
}
