import ConformCore

/// The Infobip Mobile Messaging protocol as the engine sees it: its two base URLs and its `jwt` template function.
public enum MobileMessaging {
    /// The mobile API (installations, personalization, message sync): the suites' `mobile` variable.
    public static let mobile = ProtocolProfile.Base(name: "mobile", referenceURL: "http://mobile.conform.invalid")
    /// The backend API (People, Push): the suites' `backend` variable.
    public static let backend = ProtocolProfile.Base(name: "backend", referenceURL: "http://backend.conform.invalid")

    /// The template functions suites of this protocol call beyond the built-in generators.
    public static var functions: [String: TemplateFunction] { ["jwt": jwt] }
}

extension ProtocolProfile {
    /// Infobip Mobile Messaging: the `mobile` and `backend` bases and the `jwt` function.
    public static let mobileMessaging = ProtocolProfile(
        name: "Mobile Messaging", bases: [MobileMessaging.mobile, MobileMessaging.backend],
        functions: MobileMessaging.functions)
}
