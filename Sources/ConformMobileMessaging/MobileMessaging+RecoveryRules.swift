import ConformCore

/// Mobile Messaging's rules about a client's recovery when the server could not take a call (decision D20,
/// `docs/decisions.md`): each names the public SDK issue that shows the failure it guards against
/// (`docs/recordings.md`).
extension ProtocolProfile.FlowRule {
    public static let depersonalizeRetry = Self(
        id: "depersonalize-retry", kind: .depersonalizeRetry, step: .logout, seed: sessionExpiryLine,
        summary:
            "a depersonalize (M6, B4) the server could not take (no answer, 408, 429, 5xx) is sent again and taken before the device is personalized or its user read or updated, and before the trace ends",
        help:
            "keep a failed depersonalize pending and send it again (first, before any other user call) until the server answers 2xx; never personalize the next user while it is pending (D20)",
        exercisedBy: "depersonalize (M6, B4) the server could not take")
    public static let personalizeRetry = Self(
        id: "personalize-retry", kind: .personalizeRetry, step: .login, seed: stepTwoLine,
        summary:
            "a personalize (M4, M5, B3) the server could not take is sent again, or reported by the app (a personalizeFailed event), before the user is read or updated and before the trace ends",
        help:
            "retry a personalize that got no answer or a 5xx, or tell the app (and the user) that it failed; never go on as if the device were personalized (D20)",
        exercisedBy: "personalize (M4, M5, B3) the server could not take")
    public static let registrationRecovery = Self(
        id: "registration-recovery", kind: .registrationRecovery, step: .registration, seed: stepOneLine,
        summary:
            "after the server answers NO_REGISTRATION for a pushRegId, no call carries that pushRegId again: the app registers anew (M1) and goes on with the new one",
        help:
            "when a call answers NO_REGISTRATION, register the installation again (M1), wait for registrationUpdated, then repeat the user calls with the new pushRegId (D20)",
        exercisedBy: "answer NO_REGISTRATION to a call of a device")
    public static let updateKeepsRegistration = Self(
        id: "update-keeps-registration", kind: .updateKeepsRegistration, step: .sessions,
        seed:
            "Every installation of the mobile app generates a new push registration ID. This ID should be linked to a unique person ID when an authorize/register/log-in API call is made from the mobile app to your backend.",
        summary:
            "after the app event appUpdated no registration (M1) carries the push token of an installation the trace already registered: an update is not a new installation",
        help:
            "keep the pushRegId across app updates (the SDK's stored registration); register again only after a reinstall or a NO_REGISTRATION answer (D20)",
        exercisedBy: "appUpdated app event in a trace that registered an installation before it")
    public static let syncKeepsDelivered = Self(
        id: "sync-keeps-delivered", kind: .syncKeepsDelivered, step: .logout, seed: stepThreeLine,
        summary:
            "after a depersonalize, message sync (M14) still lists the messages the device holds (mIDs) and is not handed any of them again",
        help:
            "keep the ids of received messages across depersonalize and send them in mIDs on every sync, so nothing is delivered twice (D20)",
        exercisedBy: "message sync (M14) after a depersonalize of a device that had received messages")
}
