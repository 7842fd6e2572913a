import ConformCore

/// Which endpoint of the protocol a request is, as the profile's catalogue classified it
/// (``ProtocolProfile/endpoints``); Mobile Messaging's are `M1`…`M16` and `B1`…`B8`.
public typealias FlowEndpoint = ProtocolProfile.Endpoint

extension ProtocolProfile.Endpoint {
    /// A call of the app's API (the flow rules' `M` endpoints).
    var isMobile: Bool { id.hasPrefix("M") }
    /// A call of the backend's API (the flow rules' `B` endpoints).
    var isBackend: Bool { id.hasPrefix("B") }
    /// A call that needs a registration first.
    var isUserCall: Bool { traits.contains(.needsRegistration) }
    /// A call that carries or reveals personal data from the app.
    var sendsPersonalData: Bool { traits.contains(.sendsPersonalData) }
    /// A call that needs `Bearer <JWT>` in JWT mode.
    var needsJWT: Bool { traits.contains(.needsUserToken) }
    /// The registration id the path names, if it names one.
    var pathRegistrationId: String? { registrationID }
}

/// Reads a query boolean in either SDK dialect: Android `true`/`false`, iOS `1`/`0`.
func queryFlag(_ request: HTTPRequest, _ name: String) -> Bool {
    guard let value = request.queryValue(name)?.lowercased() else { return false }
    return value == "true" || value == "1"
}
