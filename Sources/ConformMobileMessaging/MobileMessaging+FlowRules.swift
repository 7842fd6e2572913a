import ConformCore

/// Mobile Messaging's flow rules, each with the line of the certified flow (the guide that `docs/flow.md` retells) it
/// rests on: what `ProtocolProfile.mobileMessaging` declares (``MobileMessaging/flowRules``).
extension MobileMessaging {
    /// Every rule of the flow, in report order.
    public static let flowRules: [ProtocolProfile.FlowRule] = [
        .registrationFirst, .userSwitch, .restrictedPersonalData, .jwtSubject, .backendCredentials, .registrationHeader,
        .personalizeIdentity, .loginPersonalize, .logoutDepersonalize, .sessionExpiryDepersonalize,
        .appUpdatePersonalize, .primaryPush, .depersonalizeRetry, .personalizeRetry, .registrationRecovery,
        .updateKeepsRegistration, .syncKeepsDelivered,
    ]

    /// Every step of the flow, in flow order, as the suites name them (`step:` in `suites/*.yaml`).
    public static let flowSteps: [ProtocolProfile.FlowStep] = [
        .registration, .login, .logout, .sessions, .multiDevice, .primary, .backendOnly, .hygiene,
    ]
}

/// The steps of Mobile Messaging's flow.
extension ProtocolProfile.FlowStep {
    public static let registration = Self("1-registration")
    public static let login = Self("2-login")
    public static let logout = Self("3-logout")
    public static let sessions = Self("4-sessions")
    public static let multiDevice = Self("5-multi-device")
    public static let primary = Self("6-primary")
    public static let backendOnly = Self("7-backend-only")
    public static let hygiene = Self("8-hygiene")
}

/// Mobile Messaging's rules, by name.
extension ProtocolProfile.FlowRule {
    /// The lines of the certified flow that more than one rule rests on.
    static let stepOneLine =
        "1. Subscribe to registrationUpdated event and wait for its invocation -> that's the time when library gets connected to Infobip's backend (push registration ID is generated)"
    static let stepTwoLine =
        "2. When a user successfully performs registration / log in -> you need to implement personalize call with the parameter forceDepersonalize = false over mobile app or backend API."
    static let stepThreeLine =
        "3. When user performs an explicit log out -> implement depersonalize call over mobile app or backend API."
    static let sessionExpiryLine =
        "When a user session has expired and another user might use the app -> call depersonalize over mobile app or backend API to avoid sending messages targeted to the previous user."

    public static let registrationFirst = Self(
        id: "registration-first", kind: .registrationFirst, step: .registration, seed: stepOneLine,
        summary:
            "no user call (M4–M10, M14) starts before the response of the registration (M1) that issued its pushRegId has completed",
        help: "wait for the registrationUpdated event (step 1) before personalizing or sending user data",
        exercisedBy: "user call (M4–M10, M14)")
    public static let userSwitch = Self(
        id: "user-switch", kind: .userSwitch, step: .login,
        seed:
            "when a user performs registration / login and user's ID is different from what was connected to the device -> you need implement personalize call with the parameter forceDepersonalize = true over mobile app or backend API.",
        summary:
            "moving a personalized device to another person (M4, M5, B3, or an M8 that changes externalUserId) uses forceDepersonalize=true or a depersonalize first",
        help:
            "send personalize with forceDepersonalize=true (or 1) when a different user logs in, or depersonalize at logout; never change externalUserId with PATCH user",
        exercisedBy:
            "personalize (M4, M5, B3) or externalUserId change (M8) of a device it shows personalized to a known user"
    )
    public static let restrictedPersonalData = Self(
        id: "restricted-personal-data", kind: .restrictedPersonalData, step: .backendOnly,
        seed:
            "In case you would like to restrict updates of personal data or access to it from mobile app, and have enabled limitations on Application profile, use only banked API calls in recommended flow",
        summary:
            "an application that restricts updates sends no M4, M5, M8 from the app; one that restricts access also no M7",
        help: "in restricted mode personalize, update and read the user from your backend (B3, People API) instead",
        exercisedBy: "mobile call of an application given as restricted (--restricted, --restricted-access)")
    public static let jwtSubject = Self(
        id: "jwt-subject", kind: .jwtSubject, step: .backendOnly,
        seed: "backend handles authorization process - your platform contains unique IDs of end users",
        summary:
            "in JWT mode M4, M5, M7, M8 carry an unexpired Bearer JWT for the externalUserId and the application code; no other mobile call carries Bearer",
        help:
            "supply a fresh JWT from your backend (JwtSupplier) with sub = the externalUserId and infobip-api-key = the application code; other calls use `App <application code>`",
        exercisedBy:
            "M4, M5, M7 or M8 of an application given with --jwt, and no other mobile call (but M13) with a Bearer"
    )
    public static let backendCredentials = Self(
        id: "backend-credentials", kind: .backendCredentials, step: .hygiene,
        seed:
            "you use Infobip's web portal or push API for targeting users over push by their unique IDs or by tags / segments they belong to",
        summary:
            "backend calls (People, Push) authorize with an API key, never the application code; People push-registration calls (B1–B4) carry `AppCode`",
        help:
            "send `Authorization: App <API key>` from your backend, and `AppCode: <application code>` on /people/2/contactInformation/push calls",
        exercisedBy: "backend call (People, Push)"
    )
    public static let registrationHeader = Self(
        id: "registration-header", kind: .registrationHeader, step: .hygiene, seed: stepOneLine,
        summary: "every mobile call after registration carries the pushregistrationid header",
        help: "send the device's own pushRegId in the pushregistrationid header on every call after registration",
        exercisedBy: "mobile call (other than M1, M12) after a registration")
    public static let personalizeIdentity = Self(
        id: "personalize-identity", kind: .personalizeIdentity, step: .hygiene,
        seed: "The personalize call adds unique ID and additional information to the user profile.",
        summary: "personalize carries a non-empty identity (externalUserId, phones or emails)",
        help: "put at least one of externalUserId, phones or emails in userIdentity (identity on the backend API)",
        exercisedBy: "personalize (M4, M5, B3)")
    public static let loginPersonalize = Self(
        id: "login-personalize", kind: .loginPersonalize, step: .login, seed: stepTwoLine,
        summary:
            "after the app event login(externalUserId) the device is personalized to that user (forceDepersonalize=true when another user owned it), and no call carries the previous user's data first",
        help:
            "on login, personalize the device with the logged-in user's externalUserId (forceDepersonalize=true if another user was personalized) before reading or updating the user",
        exercisedBy:
            "login app event on a known device whose outcome it shows (a personalize, or the device already personalized to that user)"
    )
    public static let logoutDepersonalize = depersonalize(
        after: "logout", id: "logout-depersonalize", kind: .logoutDepersonalize, step: .logout, seed: stepThreeLine,
        help: "on logout, call depersonalize (mobile M6 or backend B4) before anything else touches the user")
    public static let sessionExpiryDepersonalize = depersonalize(
        after: "sessionExpired", id: "session-expiry-depersonalize", kind: .sessionExpiryDepersonalize, step: .sessions,
        seed: sessionExpiryLine,
        help: "when the session expires, call depersonalize (mobile M6 or backend B4) before the next user can log in")
    public static let appUpdatePersonalize = Self(
        id: "app-update-personalize", kind: .appUpdatePersonalize, step: .sessions,
        seed:
            "when an authorised user with active session updates application with Infobip SDK for the first time, you need to personalize that device and link it to the authorised user. For that listen to the registrationUpdated event and, once it comes, perform personalize call with the parameter forceDepersonalize = true over mobile app or backend API.",
        summary:
            "after the app event appUpdated(externalUserId) the first personalize of the new registration is to that user with forceDepersonalize=true",
        help:
            "after an update with a live session, personalize the new registration with forceDepersonalize=true as soon as registrationUpdated comes",
        exercisedBy:
            "appUpdated app event with an externalUserId whose outcome it shows (the first personalize of the new registration)"
    )
    public static let primaryPush = Self(
        id: "primary-push", kind: .primaryPush, step: .primary,
        seed:
            "To target a single primary device of a person using a unique ID, set at least one device as Primary over mobile app or backend API.",
        summary:
            "a push with targetOnlyPrimaryDevices=true goes to a person only when one of the person's devices is primary",
        help:
            "set a device primary first (setDeviceAsPrimary=true on personalize, isPrimary on M2 or B2), or send without targetOnlyPrimaryDevices",
        exercisedBy: "push with targetOnlyPrimaryDevices=true to a person whose devices it listed (M7, B5)"
    )

    /// A rule that an app event leaves the device depersonalized before the old user's data goes anywhere: the
    /// checker judges `logout` and `sessionExpired` alike.
    private static func depersonalize(
        after event: String, id: String, kind: Kind, step: ProtocolProfile.FlowStep, seed: String, help: String
    ) -> Self {
        Self(
            id: id, kind: kind, step: step, seed: seed,
            summary:
                "after the app event \(event) the device is depersonalized (M6 or B4) before any call carrying the old user's data and before the next login",
            help: help,
            exercisedBy:
                "\(event) app event on a known device whose outcome it shows (a depersonalize, or a call or login before one)"
        )
    }
}
