import ConformCore
import ConformTraffic
import Foundation

extension FlowChecker {
    /// `jwt-subject`: JWT-mode user-data calls carry a valid Bearer JWT; no other mobile call carries Bearer.
    mutating func checkAuthorizationScheme(_ call: Call, applicationCode: String?, _ findings: inout Findings) {
        let endpoint = call.endpoint
        if endpoint.needsJWT {
            if let code = applicationCode, configuration.jwtApplicationCodes.contains(code) {
                exercise(.jwtSubject)
                checkJWT(call, code: code) { findings.report(.jwtSubject, $0) }
            }
        } else if !endpoint.traits.contains(.acceptsUserToken) {
            // Only a Bearer here breaks the rule, and the report exercises it: any other call gives it nothing.
            guard case .bearer = call.auth else { return }
            findings.report(
                .jwtSubject,
                "\(endpoint.id) carries `Authorization: Bearer`; the mobile API takes `App <application code>` on every call but M4, M5, M7, M8 (and the inbox)"
            )
        }
    }

    private func checkJWT(_ call: Call, code: String, report: (String) -> Void) {
        let id = call.endpoint.id
        guard case .bearer(let token) = call.auth else {
            report("\(id) of JWT application '\(configuration.shown(code))' without `Authorization: Bearer <JWT>`")
            return
        }
        guard let claims = JWTClaims(token: token) else {
            report("\(id) carries a Bearer value that is not a decodable JWT")
            return
        }
        if let verify = configuration.verifyJWTSignature, !verify(token, code) {
            report("\(id) carries a JWT whose signature does not verify with the key of '\(configuration.shown(code))'")
        }
        if let key = claims.claims["infobip-api-key"]?.stringValue {
            if key != code {
                report(
                    "\(id) carries a JWT for application '\(configuration.shown(key))' but the app's application code "
                        + "is '\(configuration.shown(code))'")
            }
        } else {
            report("\(id) carries a JWT without the `infobip-api-key` claim (the application code)")
        }
        if let exp = claims.claims["exp"]?.numberValue {
            let sent = call.exchange.startedAt.timeIntervalSince1970
            if sent > 86_400, exp.isFinite, sent >= exp {
                let expiry = ISOTimestamp.format(Date(timeIntervalSince1970: min(max(exp, 0), 1e11)))
                report(
                    "\(id) carries a JWT that expired at \(expiry), before the call at \(ISOTimestamp.format(call.exchange.startedAt))"
                )
            }
        } else {
            report("\(id) carries a JWT without an `exp` claim")
        }
        let expected: String?
        if call.endpoint.isPersonalize {
            expected = Identity(mobile: call.body?["userIdentity"]).externalUserId
        } else {
            expected =
                call.body?["externalUserId"]?.stringValue ?? call.own.flatMap { devices[$0]?.externalUserId }
        }
        guard let subject = claims.subject else {
            report("\(id) carries a JWT without a `sub` claim")
            return
        }
        if let expected, subject != expected {
            report("\(id) carries a JWT for sub '\(subject)' but the externalUserId is '\(expected)'")
        }
    }
}
