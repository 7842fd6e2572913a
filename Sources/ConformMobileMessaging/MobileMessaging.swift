import ConformCore

/// The Infobip Mobile Messaging protocol as the engine sees it: its two base URLs, its `jwt` template function, its
/// application modes, its error envelope, its endpoint catalogue and where its exchanges hold secrets.
public enum MobileMessaging {
    /// The mobile API (installations, personalization, message sync): the suites' `mobile` variable.
    public static let mobile = ProtocolProfile.Base(
        name: "mobile", referenceURL: "http://mobile.conform.invalid", pathPrefixes: ["/mobile/"])
    /// The backend API (People, Push): the suites' `backend` variable.
    public static let backend = ProtocolProfile.Base(name: "backend", referenceURL: "http://backend.conform.invalid")

    /// The template functions suites of this protocol call beyond the built-in generators.
    public static var functions: [String: TemplateFunction] { ["jwt": jwt] }

    /// The kinds of application a suite may need (`profile:`): any, one in JWT mode (user data authorized with
    /// the `jwt` function's tokens), one restricted to backend personal data, one that also restricts reading it.
    public static let applicationModes = ["all", "jwt", "restricted", "restricted-access"]

    /// The standard Infobip envelope, `{"requestError":{"serviceException":{"messageId","text"}}}` (§7.1): how the
    /// protocol's servers refuse a request, and so how the reference, a mock and a recording proxy do.
    public static let errorEnvelope = ErrorEnvelope.nested(
        ["requestError", "serviceException"], code: "messageId", text: "text")
}

extension ProtocolProfile {
    /// Infobip Mobile Messaging: the `mobile` and `backend` bases and the `jwt` function.
    public static let mobileMessaging = ProtocolProfile(
        name: "Mobile Messaging", bases: [MobileMessaging.mobile, MobileMessaging.backend],
        functions: MobileMessaging.functions, applicationModes: MobileMessaging.applicationModes,
        errorEnvelope: MobileMessaging.errorEnvelope, endpoints: MobileMessaging.endpoints,
        redaction: MobileMessaging.redaction, replay: MobileMessaging.replay, flows: MobileMessaging.flows,
        exploration: MobileMessaging.exploration, flowRules: MobileMessaging.flowRules)
}
