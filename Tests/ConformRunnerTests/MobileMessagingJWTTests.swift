import ConformCore
import ConformCrypto
import ConformMobileMessaging
import Foundation
import Testing

/// Mobile Messaging's `jwt` template function: the tokens it signs, and how the mock recognises them.
@Suite struct JWTRecognitionTests {
    static let secret = "636f6e666f726d2d6a77742d7365637265742d6b65792d3031"
    static let other = "00112233445566778899aabbccddeeff"

    func token(sub: String, secret: String, ttl: Int = 3600) throws -> String {
        try MobileMessaging.jwt.call(
            [], ["sub": .string(sub), "secret": .string(secret), "kid": "k", "app": "a", "ttl": .int(ttl)]
        ).text
    }

    func binder() -> Binder {
        var scope = TemplateScope(values: ["secret": .string(Self.secret)], functions: MobileMessaging.functions)
        scope.functions.merge(TemplateScope.builtinFunctions) { a, _ in a }
        return Binder(scope: scope, free: ["user"])
    }

    @Test func aSignedTokenIsRecognisedByItsKeySubjectAndExpiry() throws {
        let template = try Template(parsing: "Bearer {{ jwt sub=user secret=secret kid='k' app='a' }}")
        var b = binder()
        let ana = b.bind(template, to: "Bearer " + (try token(sub: "ana", secret: Self.secret)))
        #expect(ana)
        #expect(b.scope["user"] == "ana")
        // Once bound, the subject must repeat.
        let ivo = b.bind(template, to: "Bearer " + (try token(sub: "ivo", secret: Self.secret)))
        #expect(!ivo)
        var c = binder()
        let otherKey = c.bind(template, to: "Bearer " + (try token(sub: "ana", secret: Self.other)))
        #expect(!otherKey)
        let expiredForLive = c.bind(template, to: "Bearer " + (try token(sub: "ana", secret: Self.secret, ttl: -60)))
        #expect(!expiredForLive)
        let expired = try Template(parsing: "Bearer {{ jwt sub=user secret=secret kid='k' app='a' ttl=-120 }}")
        let expiredForExpired = c.bind(expired, to: "Bearer " + (try token(sub: "ana", secret: Self.secret, ttl: -60)))
        #expect(expiredForExpired)
        let garbage = c.bind(template, to: "Bearer not-a-token")
        #expect(!garbage)
    }
}

@Suite struct JWTTimeToLiveTests {
    func call(ttl: JSONValue) throws(TemplateError) -> JSONValue {
        try MobileMessaging.jwt.call([], ["sub": "ana", "secret": "00112233", "ttl": ttl])
    }

    @Test(arguments: [
        JSONValue.int(Int.max), .int(Int.min), .int(315_360_001), .string("99999999999999999999"),
        .string("-99999999999999999999"), .double(1e300), .double(.infinity), .double(1.5), .string("soon"),
        .string(""),
    ])
    func outOfRangeTimeToLiveIsAnErrorNotADefault(_ ttl: JSONValue) {
        #expect(throws: TemplateError.self) { try call(ttl: ttl) }
        do {
            _ = try call(ttl: ttl)
        } catch {
            #expect(error.message.hasPrefix("jwt ttl must be a whole number of seconds from -315360000 to 315360000"))
        }
    }

    @Test func timeToLiveInRangeSetsTheExpiry() throws {
        for (ttl, expected) in [(JSONValue.int(-60), -60), (.string("120"), 120), (.double(600), 600)] {
            let token = try call(ttl: ttl).text
            guard case .success(let decoded) = JWT.decode(token) else {
                Issue.record("not a JWT: \(token)")
                continue
            }
            let claims = try JSONValue.parse(decoded.claims)
            let iat = claims["iat"]?.numberValue ?? 0
            #expect(claims["exp"]?.numberValue == iat + Double(expected))
        }
    }
}
