import ConformCore

/// Where Mobile Messaging's exchanges hold credentials and personal data, for redaction and the secret scan.
extension MobileMessaging {
    /// `App <code>` authorization, the `AppCode` header, the `applicationcode` digest header, the
    /// `infobip-api-key` claim of user-data JWTs, the protocol's phone and device-token members, the People API's
    /// `type=PHONE&identifier=…` lookup, and the reference's documented (public) credentials.
    public static let redaction = ProtocolProfile.RedactionKeys(
        credentialSchemes: ["App"], credentialHeaders: ["AppCode"], codeDigestHeaders: ["applicationcode"],
        credentialClaims: ["infobip-api-key"],
        phoneFields: ["number", "phoneNumber", "msisdn", "phone", "phones", "mobile", "gsm"],
        tokenFields: ["pushServiceToken", "cloudToken", "deviceToken", "registrationToken"],
        phoneLookup: .init(kindParameter: "type", phoneKind: "phone", identifierParameter: "identifier"),
        publicValues: referenceCredentials, credentialRoles: credentialRoles, applicationRole: "appCode")

    /// The application code (`App <code>` on the mobile API, the `AppCode` header of People calls, the
    /// `infobip-api-key` claim of user-data JWTs) and the API key (`App <key>` on the backend API).
    public static let credentialRoles = [
        ProtocolProfile.CredentialRole(
            name: "appCode", title: "application code",
            places: [.authorization(scheme: "App", base: mobile.name), .header("AppCode"), .claim("infobip-api-key")]),
        ProtocolProfile.CredentialRole(
            name: "apiKey", title: "API key", places: [.authorization(scheme: "App", base: backend.name)]),
    ]

    /// The documented credentials of the built-in reference applications: public, so not secrets.
    public static let referenceCredentials = [
        "conform-app-code", "conform-api-key", "conform-jwt-app-code", "conform-jwt-api-key",
        "conform-restricted-app-code", "conform-restricted-api-key", "conform-restricted-access-app-code",
        "conform-restricted-access-api-key",
    ]
}
