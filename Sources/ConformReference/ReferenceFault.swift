/// A deliberate bug the reference implementation can switch on, to prove that a suite catches it (an open set).
public struct ReferenceFault: ReferenceSwitch {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    // Registration and installations.
    /// M1 answers 200 without `pushRegId`.
    public static let registrationWithoutPushRegId = ReferenceFault(rawValue: "registrationWithoutPushRegId")
    /// An unknown pushRegistrationId is silently created instead of refused (D10 broken).
    public static let unknownRegistrationAccepted = ReferenceFault(rawValue: "unknownRegistrationAccepted")
    /// `POST` + `X-HTTP-Method-Override: PATCH` is treated as a plain POST (D14 broken).
    public static let methodOverrideIgnored = ReferenceFault(rawValue: "methodOverrideIgnored")
    /// A caller may act on an installation of another person (the `pushregistrationid` header is not checked).
    public static let otherInstallationUnchecked = ReferenceFault(rawValue: "otherInstallationUnchecked")

    /// M12 answers a `baseUrl` under which the mobile API is not served.
    public static let baseURLNotServed = ReferenceFault(rawValue: "baseURLNotServed")
    /// Mobile responses announce a `New-Base-URL` that is not an absolute URL (a bare path), which SDKs cannot use.
    public static let newBaseURLNotAbsolute = ReferenceFault(rawValue: "newBaseURLNotAbsolute")
    /// M11 answers 200 and keeps the registration.
    public static let deleteInstallationNoop = ReferenceFault(rawValue: "deleteInstallationNoop")

    /// M2 keeps the system data reported at registration: later app and SDK versions and push tokens are dropped.
    public static let systemDataPatchIgnored = ReferenceFault(rawValue: "systemDataPatchIgnored")
    /// M9 accepts only `+01:00` offsets and refuses Android's `+0100` session times.
    public static let sessionTimestampColonOnly = ReferenceFault(rawValue: "sessionTimestampColonOnly")

    // Personalize.
    /// `forceDepersonalize=true` acts like `false`.
    public static let ignoreForceDepersonalize = ReferenceFault(rawValue: "ignoreForceDepersonalize")
    /// `forceDepersonalize=false` with another externalUserId silently moves the device (D2 broken).
    public static let mergeOnDifferentUser = ReferenceFault(rawValue: "mergeOnDifferentUser")
    /// Personalizing twice with the same identity fails (D3 broken).
    public static let personalizeNotIdempotent = ReferenceFault(rawValue: "personalizeNotIdempotent")
    /// With `forceDepersonalize=true` the old person loses all its devices, not only this one (D4 broken).
    public static let forceDepersonalizeDropsOtherDevices = ReferenceFault(
        rawValue: "forceDepersonalizeDropsOtherDevices")
    /// Query booleans `1`/`0` are read as false (D13 broken).
    public static let numericBooleansIgnored = ReferenceFault(rawValue: "numericBooleansIgnored")
    /// `forceDepersonalize=true` on a device nobody is logged in on is refused, breaking the app-update case of flow step 4.
    public static let forceOnAnonymousRefused = ReferenceFault(rawValue: "forceOnAnonymousRefused")
    /// An empty `userIdentity` is accepted.
    public static let emptyIdentityAccepted = ReferenceFault(rawValue: "emptyIdentityAccepted")

    /// `keepAsLead=true` still promotes the person to CUSTOMER.
    public static let keepAsLeadIgnored = ReferenceFault(rawValue: "keepAsLeadIgnored")
    /// Explicit nulls in PATCH user are ignored instead of deleting (Android's delete, §3.6).
    public static let patchUserNullsIgnored = ReferenceFault(rawValue: "patchUserNullsIgnored")
    /// Identity conflicts pass silently: PATCH user to another person's externalUserId answers 200 and changes
    /// nothing, and an identity matching several persons personalizes to the first (D1 conditions, assumed).
    public static let mergeConflictsIgnored = ReferenceFault(rawValue: "mergeConflictsIgnored")

    // Depersonalize.
    /// Depersonalize answers 200 and changes nothing.
    public static let depersonalizeNoop = ReferenceFault(rawValue: "depersonalizeNoop")
    /// Depersonalize moves the device to a new person, but GET user still shows the old externalUserId.
    public static let depersonalizeKeepsIdentity = ReferenceFault(rawValue: "depersonalizeKeepsIdentity")

    /// A second depersonalize, with nothing left to do, is refused instead of accepted (D5).
    public static let repeatedDepersonalizeRefused = ReferenceFault(rawValue: "repeatedDepersonalizeRefused")

    /// Depersonalizing another installation (§3.5) depersonalizes the caller (header) instead of the path's device.
    public static let otherDepersonalizeActsOnCaller = ReferenceFault(rawValue: "otherDepersonalizeActsOnCaller")
    /// B3 ignores `attributes`: standard attributes, tags and custom attributes are dropped.
    public static let backendAttributesIgnored = ReferenceFault(rawValue: "backendAttributesIgnored")

    // State carried into the next cycle: bugs only a sequence of calls shows.
    /// Depersonalize keeps the user's attributes, tags and custom attributes on the device's new anonymous person,
    /// so the next user to log in there inherits them (D5).
    public static let depersonalizeKeepsUserData = ReferenceFault(rawValue: "depersonalizeKeepsUserData")
    /// A device keeps its primary flag when it changes person (logout, login of another user, forced switch) (D6).
    public static let primaryKeptAcrossPersons = ReferenceFault(rawValue: "primaryKeptAcrossPersons")
    /// Pushes sent to the previous person and not yet handed out stay queued on a device that changes person, and
    /// reach the next user at its next message sync (D12).
    public static let switchKeepsPendingPushes = ReferenceFault(rawValue: "switchKeepsPendingPushes")
    /// Depersonalizing one device also logs out every other device of its person (D5).
    public static let depersonalizeLogsOutSiblings = ReferenceFault(rawValue: "depersonalizeLogsOutSiblings")
    /// B3 with `setDeviceAsPrimary=true` does not clear the person's other primary device (D6, backend route only).
    public static let backendPersonalizePrimaryNotExclusive = ReferenceFault(
        rawValue: "backendPersonalizePrimaryNotExclusive")
    /// Personalize with `forceDepersonalize=true` and the identity the device already has moves the device to a
    /// new person of the same externalUserId, leaving the person's data and other devices behind (D3).
    public static let forcedReloginNewPerson = ReferenceFault(rawValue: "forcedReloginNewPerson")
    /// A delivery reported by one device (M14 `drIDs`, M15) also withdraws the push's copies on every other device.
    public static let deliveryReportedForAllDevices = ReferenceFault(rawValue: "deliveryReportedForAllDevices")

    // Primary devices.
    /// Setting a primary device does not clear the person's other primary devices (D6 broken).
    public static let primaryNotExclusive = ReferenceFault(rawValue: "primaryNotExclusive")
    /// `setDeviceAsPrimary=true` on personalize is ignored.
    public static let setDeviceAsPrimaryIgnored = ReferenceFault(rawValue: "setDeviceAsPrimaryIgnored")

    // Push and message sync.
    /// `targetOnlyPrimaryDevices=true` still reaches every device.
    public static let targetOnlyPrimaryIgnored = ReferenceFault(rawValue: "targetOnlyPrimaryIgnored")
    /// A registration disabled with `regEnabled=false` is still reached by pushes.
    public static let disabledRegistrationReached = ReferenceFault(rawValue: "disabledRegistrationReached")
    /// A push filter on tags looks at installation custom attributes instead of the person's tags.
    public static let tagsReadFromInstallation = ReferenceFault(rawValue: "tagsReadFromInstallation")
    /// A push to a person reaches only the first of its devices.
    public static let pushReachesOnlyFirstDevice = ReferenceFault(rawValue: "pushReachesOnlyFirstDevice")
    /// Message sync keeps re-sending ids the device listed in `mIDs` or reported in `drIDs`.
    public static let syncResendsKnownMessages = ReferenceFault(rawValue: "syncResendsKnownMessages")
    /// A primary-only push to a person without a primary device is refused instead of accepted (D7).
    public static let primaryOnlyWithoutPrimaryRefused = ReferenceFault(rawValue: "primaryOnlyWithoutPrimaryRefused")
    /// A push that reaches no device is reported PENDING_ACCEPTED instead of UNDELIVERABLE_NO_DESTINATION.
    public static let noDestinationReportedAccepted = ReferenceFault(rawValue: "noDestinationReportedAccepted")

    /// M15 reads M14's `drIDs` instead of `dlrIds` and refuses the iOS extension's report.
    public static let deliveryReportWrongKey = ReferenceFault(rawValue: "deliveryReportWrongKey")
    /// M16 refuses a seen report for a message already reported delivered.
    public static let seenAfterDeliveryRefused = ReferenceFault(rawValue: "seenAfterDeliveryRefused")
    /// B7 sends only the first message of `messages`, though it answers a bulk for each.
    public static let pushMultiSendsOnlyFirst = ReferenceFault(rawValue: "pushMultiSendsOnlyFirst")
    /// B8 ignores `targetOnlyPrimaryDevices` on destinations (it reads it only at the top level, as in v2).
    public static let v3TargetOnlyPrimaryIgnored = ReferenceFault(rawValue: "v3TargetOnlyPrimaryIgnored")
    /// B8 refuses a request in the `requestError` envelope instead of the `E400` violations envelope.
    public static let v3ErrorsInStandardEnvelope = ReferenceFault(rawValue: "v3ErrorsInStandardEnvelope")

    // Authorization.
    /// The restricted profile lets the mobile SDK personalize and patch the user (D8 broken).
    public static let restrictedNotEnforced = ReferenceFault(rawValue: "restrictedNotEnforced")
    /// The updates-restricted profile also refuses the app's GET user (D8: only access-restricted ones may).
    public static let restrictedRefusesRead = ReferenceFault(rawValue: "restrictedRefusesRead")
    /// The access-restricted profile lets the app read the user with GET user (D8 broken).
    public static let restrictedAccessReadAllowed = ReferenceFault(rawValue: "restrictedAccessReadAllowed")
    /// Any Bearer token is accepted in JWT mode: signature, key id and expiry are not checked (D9 broken).
    public static let jwtNotVerified = ReferenceFault(rawValue: "jwtNotVerified")
    /// A valid JWT for one externalUserId opens another user's data (D9 `sub` check missing).
    public static let jwtSubjectNotChecked = ReferenceFault(rawValue: "jwtSubjectNotChecked")
    /// In JWT mode, `App <applicationCode>` is still accepted on user-data calls (D9 broken).
    public static let jwtModeAcceptsAppCode = ReferenceFault(rawValue: "jwtModeAcceptsAppCode")
    /// A JWT's `infobip-api-key` claim is not compared with the application code (D9 broken).
    public static let jwtApiKeyClaimNotChecked = ReferenceFault(rawValue: "jwtApiKeyClaimNotChecked")
    /// A JWT whose `kid` the profile does not have is verified with the profile's key anyway (D9 broken).
    public static let jwtKidNotChecked = ReferenceFault(rawValue: "jwtKidNotChecked")
    /// In JWT mode PATCH user may change the externalUserId (WIKI-UDA: only personalize may).
    public static let jwtExternalUserIdChangeAllowed = ReferenceFault(rawValue: "jwtExternalUserIdChangeAllowed")
    /// An application code opens backend (People and Push) endpoints (D11 broken).
    public static let appCodeOpensBackend = ReferenceFault(rawValue: "appCodeOpensBackend")
    /// People endpoints do not require the `AppCode` header (48001 never sent).
    public static let appCodeHeaderNotRequired = ReferenceFault(rawValue: "appCodeHeaderNotRequired")

    // Wire format.
    /// Error responses carry no `Content-Length` (D15 broken).
    public static let errorWithoutContentLength = ReferenceFault(rawValue: "errorWithoutContentLength")
    /// Error responses use `Content-Type: text/plain` (D15 broken).
    public static let errorAsPlainText = ReferenceFault(rawValue: "errorAsPlainText")

    /// Every fault this build knows, in a stable order.
    public static let allCases: [ReferenceFault] = [
        .registrationWithoutPushRegId, .unknownRegistrationAccepted, .methodOverrideIgnored,
        .otherInstallationUnchecked,
        .ignoreForceDepersonalize, .mergeOnDifferentUser, .personalizeNotIdempotent,
        .forceDepersonalizeDropsOtherDevices,
        .numericBooleansIgnored, .emptyIdentityAccepted, .depersonalizeNoop, .depersonalizeKeepsIdentity,
        .primaryNotExclusive, .setDeviceAsPrimaryIgnored, .targetOnlyPrimaryIgnored, .pushReachesOnlyFirstDevice,
        .syncResendsKnownMessages, .noDestinationReportedAccepted, .restrictedNotEnforced, .jwtNotVerified,
        .jwtSubjectNotChecked, .jwtModeAcceptsAppCode, .appCodeOpensBackend, .appCodeHeaderNotRequired,
        .errorWithoutContentLength, .errorAsPlainText, .forceOnAnonymousRefused,
        .baseURLNotServed, .deleteInstallationNoop, .deliveryReportWrongKey, .seenAfterDeliveryRefused,
        .pushMultiSendsOnlyFirst, .v3TargetOnlyPrimaryIgnored, .v3ErrorsInStandardEnvelope, .keepAsLeadIgnored,
        .patchUserNullsIgnored, .mergeConflictsIgnored, .otherDepersonalizeActsOnCaller, .backendAttributesIgnored,
        .tagsReadFromInstallation, .jwtApiKeyClaimNotChecked, .jwtKidNotChecked, .jwtExternalUserIdChangeAllowed,
        .systemDataPatchIgnored, .sessionTimestampColonOnly, .disabledRegistrationReached,
        .restrictedRefusesRead, .restrictedAccessReadAllowed, .newBaseURLNotAbsolute, .repeatedDepersonalizeRefused,
        .primaryOnlyWithoutPrimaryRefused, .depersonalizeKeepsUserData, .primaryKeptAcrossPersons,
        .switchKeepsPendingPushes, .depersonalizeLogsOutSiblings, .backendPersonalizePrimaryNotExclusive,
        .forcedReloginNewPerson, .deliveryReportedForAllDevices,
    ]

    public static let summaries: [String: String] = [
        "registrationWithoutPushRegId": "M1 answers 200 without pushRegId",
        "unknownRegistrationAccepted": "an unknown pushRegistrationId is created on the fly instead of refused (D10)",
        "methodOverrideIgnored": "POST + X-HTTP-Method-Override: PATCH is treated as POST (D14)",
        "otherInstallationUnchecked": "a device may act on installations of another person",
        "ignoreForceDepersonalize": "forceDepersonalize=true acts like false (D4)",
        "mergeOnDifferentUser": "forceDepersonalize=false with another externalUserId silently moves the device (D2)",
        "personalizeNotIdempotent": "personalizing twice with the same identity fails (D3)",
        "forceDepersonalizeDropsOtherDevices": "forceDepersonalize=true strips the old person of all its devices (D4)",
        "numericBooleansIgnored": "query booleans 1/0 are read as false (D13)",
        "forceOnAnonymousRefused": "forceDepersonalize=true on an anonymous device is refused (step 4, app update)",
        "emptyIdentityAccepted": "an empty userIdentity is accepted instead of USER_IDENTITY_INVALID",
        "depersonalizeNoop": "depersonalize answers 200 and changes nothing (D5)",
        "depersonalizeKeepsIdentity": "after depersonalize GET user still shows the old externalUserId (D5)",
        "primaryNotExclusive": "setting a primary device keeps the others primary (D6)",
        "setDeviceAsPrimaryIgnored": "setDeviceAsPrimary=true on personalize is ignored (D6)",
        "targetOnlyPrimaryIgnored": "targetOnlyPrimaryDevices=true reaches every device (D7)",
        "pushReachesOnlyFirstDevice": "a push to a person reaches only its first device",
        "syncResendsKnownMessages": "message sync re-sends ids listed in mIDs or drIDs (D12)",
        "noDestinationReportedAccepted":
            "a push reaching no device reports PENDING_ACCEPTED, not UNDELIVERABLE_NO_DESTINATION",
        "restrictedNotEnforced": "the restricted profile accepts mobile personalize and PATCH user (D8)",
        "jwtNotVerified": "any Bearer token is accepted in JWT mode (D9)",
        "jwtSubjectNotChecked": "a JWT's sub is not compared with the externalUserId (D9)",
        "jwtModeAcceptsAppCode": "JWT mode accepts App <applicationCode> on user-data calls (D9)",
        "appCodeOpensBackend": "an application code opens backend endpoints (D11)",
        "appCodeHeaderNotRequired": "People endpoints work without the AppCode header (48001)",
        "errorWithoutContentLength": "error responses carry no Content-Length (D15)",
        "errorAsPlainText": "error responses are labelled text/plain (D15)",
        "otherDepersonalizeActsOnCaller": "depersonalizing another installation logs out the caller instead (§3.5)",
        "backendAttributesIgnored": "B3 drops attributes, tags and custom attributes",
        "tagsReadFromInstallation": "a push to a tag looks at installation attributes, not the person's tags",
        "jwtApiKeyClaimNotChecked": "a JWT's infobip-api-key claim is not compared with the application code (D9)",
        "jwtKidNotChecked": "a JWT with an unknown kid is verified with the profile's key anyway (D9)",
        "jwtExternalUserIdChangeAllowed": "in JWT mode PATCH user may change the externalUserId",
        "systemDataPatchIgnored": "M2 drops system data changes (app and SDK versions, push token)",
        "sessionTimestampColonOnly": "M9 refuses Android's +0100 session times",
        "disabledRegistrationReached": "a registration with regEnabled=false is still reached (D12)",
        "restrictedRefusesRead": "the updates-restricted profile refuses the app's GET user (D8)",
        "restrictedAccessReadAllowed": "the access-restricted profile lets the app read the user (D8)",
        "newBaseURLNotAbsolute": "mobile responses announce a New-Base-URL that is a bare path",
        "keepAsLeadIgnored": "keepAsLead=true still promotes the person to CUSTOMER",
        "patchUserNullsIgnored": "explicit nulls in PATCH user do not delete",
        "mergeConflictsIgnored":
            "identity conflicts pass silently instead of USER_MERGE_INTERRUPTED / AMBIGUOUS_PERSONALIZE_CANDIDATES (D1)",
        "baseURLNotServed": "M12 answers a baseUrl under which the mobile API is not served",
        "deleteInstallationNoop": "M11 answers 200 and keeps the expired registration",
        "deliveryReportWrongKey": "M15 reads drIDs instead of dlrIds and refuses the report",
        "seenAfterDeliveryRefused": "M16 refuses a seen report for a message already reported delivered",
        "pushMultiSendsOnlyFirst": "B7 sends only the first of its messages",
        "v3TargetOnlyPrimaryIgnored": "B8 ignores targetOnlyPrimaryDevices on destinations (D7)",
        "v3ErrorsInStandardEnvelope": "B8 refuses in the requestError envelope instead of E400",
        "repeatedDepersonalizeRefused": "a second depersonalize is refused instead of accepted (D5)",
        "primaryOnlyWithoutPrimaryRefused": "a primary-only push to a person without a primary device is refused (D7)",
        "depersonalizeKeepsUserData":
            "depersonalize keeps the user's attributes and tags on the device; the next user inherits them (D5)",
        "primaryKeptAcrossPersons": "a device keeps its primary flag when it changes person (D6)",
        "switchKeepsPendingPushes":
            "the previous user's pushes not yet handed out reach the device's next user (D12)",
        "depersonalizeLogsOutSiblings": "depersonalizing one device logs out the person's other devices (D5)",
        "backendPersonalizePrimaryNotExclusive": "B3 setDeviceAsPrimary=true keeps the other device primary (D6)",
        "forcedReloginNewPerson": "a forced login of the same user moves the device to a new person (D3)",
        "deliveryReportedForAllDevices": "a delivery reported by one device withdraws the push on the others",
    ]
}
