import ConformCore
import ConformCrypto
import Foundation

/// How a mobile request authorized itself.
enum MobileCredential: Sendable {
    case applicationCode
    /// A Bearer token; `claims` is `nil` when it could not be decoded.
    case bearer(token: String, claims: JSONValue?)
}

extension ReferenceEngine {
    /// Splits `Authorization: <scheme> <value>`; the scheme is compared case-insensitively.
    func authorization(_ request: HTTPRequest) -> (scheme: String, value: String)? {
        guard let raw = request.headerFields["Authorization"] else { return nil }
        let header = raw.drop { $0 == " " || $0 == "\t" }
        guard let space = header.firstIndex(of: " ") else { return nil }
        var value = header[header.index(after: space)...].drop { $0 == " " || $0 == "\t" }
        while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
        return (header[..<space].lowercased(), String(value))
    }

    /// The application behind a mobile request (D11): `App <applicationCode>`, or `Bearer <JWT>` where `allowBearer`.
    ///
    /// A Bearer token names its application in the `infobip-api-key` claim; when it cannot be decoded the
    /// application owning `installationId` is used, so a fault that skips verification still finds one.
    func mobileApplication(
        _ request: HTTPRequest, allowBearer: Bool, installationId: String? = nil, state: ReferenceState? = nil
    ) throws(ReferenceError) -> (ReferenceConfiguration.Application, MobileCredential) {
        guard let auth = authorization(request) else {
            throw .unauthorized("Missing Authorization header; send 'App <applicationCode>'.")
        }
        switch auth.scheme {
        case "app":
            if let app = configuration.application(code: auth.value) { return (app, .applicationCode) }
            if configuration.application(apiKey: auth.value) != nil {
                throw .unauthorized("An API key is not accepted on mobile endpoints; send the application code.")
            }
            throw .unauthorized("Invalid application code.")
        case "bearer" where allowBearer:
            let claims: JSONValue? =
                switch JWT.decode(auth.value) {
                case .success(let decoded): try? JSONValue.parse(decoded.claims)
                case .failure: nil
                }
            if let code = claims?["infobip-api-key"]?.stringValue, let app = configuration.application(code: code) {
                return (app, .bearer(token: auth.value, claims: claims))
            }
            if has(.jwtNotVerified) || has(.jwtApiKeyClaimNotChecked), let id = installationId,
                let owner = state?.installations[id],
                let app = configuration.application(id: owner.applicationId)
            {
                return (app, .bearer(token: auth.value, claims: claims))
            }
            throw .jwtRefused("The JWT does not name a known application in its 'infobip-api-key' claim.")
        case "bearer":
            throw .unauthorized("Bearer tokens are accepted only on personalize, repersonalize and user calls.")
        default:
            throw .unauthorized("Unsupported Authorization scheme '\(auth.scheme)'; send 'App <applicationCode>'.")
        }
    }

    /// Checks the user-data authorization of personalize, repersonalize, GET user and PATCH user (D9).
    ///
    /// `subject` is the externalUserId the token must carry; `nil` means the person has none yet, and then any
    /// valid token of the application is accepted (D9 is silent on anonymous persons).
    func authorizeUserData(
        _ app: ReferenceConfiguration.Application, _ credential: MobileCredential, subject: String?
    ) throws(ReferenceError) {
        switch credential {
        case .applicationCode:
            if app.userDataMode == .jwt && !has(.jwtModeAcceptsAppCode) {
                throw .jwtRefused("This application requires 'Authorization: Bearer <JWT>' for user data.")
            }
        case .bearer(let token, let claims):
            if has(.jwtNotVerified) { return }
            try verify(token: token, claims: claims, app: app, subject: subject)
        }
    }

    private func verify(
        token: String, claims: JSONValue?, app: ReferenceConfiguration.Application, subject: String?
    ) throws(ReferenceError) {
        guard case .success(let decoded) = JWT.decode(token), let claims,
            let header = try? JSONValue.parse(decoded.header)
        else { throw .jwtRefused("The JWT is malformed.") }
        let kid = header["kid"]?.stringValue ?? ""
        // The `jwtKidNotChecked` fault signs with the application's first key, whatever `kid` names.
        let key =
            app.jwtKeys[kid] ?? (has(.jwtKidNotChecked) ? app.jwtKeys.sorted { $0.key < $1.key }.first?.value : nil)
        guard let hex = key, let secret = Hex.decode(hex) else {
            throw .jwtRefused("The JWT 'kid' does not name a key of this application.")
        }
        switch JWT.verifyHS256(token: token, secret: secret) {
        case .success: break
        case .failure(let failure): throw .jwtRefused("The JWT was refused: \(failure).")
        }
        guard let exp = claims["exp"]?.numberValue else { throw .jwtRefused("The JWT has no 'exp' claim.") }
        guard exp > now().timeIntervalSince1970 else { throw .jwtRefused("The JWT is expired.") }
        guard claims["infobip-api-key"]?.stringValue == app.applicationCode || has(.jwtApiKeyClaimNotChecked) else {
            throw .jwtRefused("The JWT 'infobip-api-key' claim is not this application's code.")
        }
        guard let sub = claims["sub"]?.stringValue, !sub.isEmpty else {
            throw .jwtRefused("The JWT has no 'sub' claim.")
        }
        if let subject, sub != subject, !has(.jwtSubjectNotChecked) {
            throw .jwtRefused("The JWT 'sub' does not match the externalUserId.")
        }
    }

    /// The application behind a backend request (D11): `App <API key>`; People endpoints also need `AppCode`.
    func backendApplication(
        _ request: HTTPRequest, requireAppCode: Bool
    ) throws(ReferenceError) -> ReferenceConfiguration.Application {
        guard let auth = authorization(request), auth.scheme == "app" else {
            throw .unauthorized("Missing or unsupported Authorization; send 'App <API key>'.")
        }
        let app: ReferenceConfiguration.Application
        if let byKey = configuration.application(apiKey: auth.value) {
            app = byKey
        } else if let byCode = configuration.application(code: auth.value) {
            guard has(.appCodeOpensBackend) else {
                throw .unauthorized("An application code is not accepted on backend endpoints; send the API key.")
            }
            app = byCode
        } else {
            throw .unauthorized("Invalid API key.")
        }
        if requireAppCode && !has(.appCodeHeaderNotRequired) {
            guard let code = request.headerFields["AppCode"], !code.isEmpty else {
                throw .people(48001, "Application code missing")
            }
            guard code == app.applicationCode else { throw .people(48012, "Push application not found") }
        }
        return app
    }

    /// Resolves a mobile path id within `app` and checks the caller (header `pushregistrationid`) may act on it.
    ///
    /// The caller must be the target or another installation of the same person, else 403 `FORBIDDEN`
    /// (an extension of D11: an installation is the caller's own or its person's).
    func mobileTarget(
        _ id: String, app: ReferenceConfiguration.Application, request: HTTPRequest, state: inout ReferenceState
    ) throws(ReferenceError) -> Installation {
        let target = try installation(id, app: app, state: &state, unknown: ReferenceError.noRegistration)
        if let caller = request.headerFields["pushregistrationid"], !caller.isEmpty, caller != id {
            guard let callerInstallation = state.installations[caller], callerInstallation.applicationId == app.id
            else {
                throw .noRegistration(caller)
            }
            if callerInstallation.personId != target.personId && !has(.otherInstallationUnchecked) {
                throw .forbidden("Installation '\(id)' does not belong to the caller's person.")
            }
        }
        return target
    }

    /// The installation `id` of `app`; unknown ids throw `unknown(id)` (D10) unless a fault creates them.
    func installation(
        _ id: String, app: ReferenceConfiguration.Application, state: inout ReferenceState,
        unknown: (String) -> ReferenceError
    ) throws(ReferenceError) -> Installation {
        if let found = state.installations[id], found.applicationId == app.id { return found }
        guard has(.unknownRegistrationAccepted), state.installations[id] == nil, !id.isEmpty else { throw unknown(id) }
        let person = state.newAnonymousPerson(applicationId: app.id)
        let created = Installation(pushRegId: id, applicationId: app.id, personId: person)
        state.installations[id] = created
        state.persons[person]?.installations.append(id)
        return created
    }
}
