import ConformCore
import ConformCrypto
import Foundation

extension ReferenceConfiguration.Application {
    /// A user-data JWT as the customer backend would mint it (§6): HS256 under `keyID`, `sub` = `externalUserId`.
    ///
    /// Returns `nil` when the application has no such key or its secret is not hex.
    public func userDataToken(
        externalUserId: String, expiresAt: Date = Date().addingTimeInterval(3600), issuedAt: Date = Date(),
        keyID: String? = nil, tokenId: String = RandomBytes.uuid()
    ) -> String? {
        guard let kid = keyID ?? jwtKeys.keys.sorted().first, let hex = jwtKeys[kid], let secret = Hex.decode(hex)
        else {
            return nil
        }
        let claims: JSONValue = [
            "typ": "Bearer", "sub": .string(externalUserId), "infobip-api-key": .string(applicationCode),
            "iss": .string(applicationCode), "iat": .int(Int(issuedAt.timeIntervalSince1970)),
            "exp": .int(Int(expiresAt.timeIntervalSince1970)), "jti": .string(tokenId),
        ]
        return JWT.signHS256(claims: claims.serialized(), keyID: kid, secret: secret)
    }
}
