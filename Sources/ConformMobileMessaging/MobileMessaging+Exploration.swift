import ConformCore

/// What `conform explore` sends to a Mobile Messaging implementation: every mobile and backend call that changes or
/// reveals who owns an installation, which device is primary, what a user holds and which device a push reaches,
/// and the reports a device sends back about the pushes it received; and how each answer is read. Requests are in the suite format (docs/suite-format.md); every device is an
/// Android (Firebase) installation, so a synced push shows its text at `gcm.notification.body`.
extension MobileMessaging {
    public static let exploration = ProtocolProfile.Exploration(
        operations: installationOperations + personalizationOperations + pushOperations + reportOperations
            + probeOperations + jwtProbeOperations,
        applications: explorationApplications, errorCodePath: "$.requestError.serviceException.messageId",
        mustErrorCodes: [
            "USER_MERGE_INTERRUPTED", "AMBIGUOUS_PERSONALIZE_CANDIDATES", "PERSONALIZATION_IMPOSSIBLE",
            "USER_IDENTITY_INVALID",
        ],
        assumedRefusals: [
            "USER_MERGE_INTERRUPTED": "D2", "AMBIGUOUS_PERSONALIZE_CANDIDATES": "D1",
            "PERSONALIZATION_IMPOSSIBLE": "D1", "FORBIDDEN": "D16",
        ],
        pushAssumptions: ExplorePushAssumptions(
            withdrawn: "D12", formerPrimary: "D6", noPrimary: "D7", disabled: "D12"),
        // D15: every error body is JSON and carries its length.
        refusalObservations: [
            .header("Content-Type", pattern: "^application/json", .must),
            .header("Content-Length", pattern: "^[0-9]+$", .must),
        ])

    static let explorationApplications: [String: ExploreApplication] = [
        "all": application("conform-app-code", "conform-api-key"),
        "restricted": application("conform-restricted-app-code", "conform-restricted-api-key"),
        "restricted-access": application("conform-restricted-access-app-code", "conform-restricted-access-api-key"),
        "jwt": ExploreApplication(
            variables: [
                ExploreVariable("appCode", "conform-jwt-app-code"), ExploreVariable("apiKey", "conform-jwt-api-key"),
                ExploreVariable("jwtKeyId", "conform-kid"),
                ExploreVariable("jwtSecret", "636f6e666f726d2d6a77742d7365637265742d6b65792d3031"),
                // What the JWT probes sign with instead: a key, a key id and an application code the target's
                // application does not have.
                ExploreVariable("jwtWrongSecret", "77726f6e672d6b65792d6f662d636f6e666f726d2d6578706c6f7265"),
                ExploreVariable("jwtUnknownKeyId", "conform-explore-unknown-kid"),
                ExploreVariable("jwtWrongAppCode", "conform-explore-wrong-app-code"),
            ],
            userAuthorization: "Bearer {{ jwt sub=<sub> secret=jwtSecret kid=jwtKeyId app=appCode }}"),
    ]

    private static func application(_ code: String, _ key: String) -> ExploreApplication {
        ExploreApplication(
            variables: [ExploreVariable("appCode", code), ExploreVariable("apiKey", key)],
            userAuthorization: "App {{ appCode }}")
    }

    static let mobileAuth = #"headers: {Authorization: "App {{ appCode }}", pushregistrationid: "<device>"}"#
    static let userAuth = #"headers: {Authorization: "<userAuth>", pushregistrationid: "<device>"}"#
    static let backendAuth = #"headers: {Authorization: "App {{ apiKey }}", AppCode: "{{ appCode }}"}"#
    static let pushAuth = #"headers: {Authorization: "App {{ apiKey }}"}"#
    private static let booleans = ["false", "true"]
    /// A mobile query boolean in both spellings the SDKs send: Android's `true`/`false`, iOS's `1`/`0` (D13).
    private static let queryBooleans = ["false", "true", "0", "1"]
    static let primaryFlag = ExploreObservation.flag("$.isPrimary", whenSet: .must, whenClear: .assumed("D6"))
    /// §1.1: a `New-Base-URL` a mobile answer carries is where the SDK goes next, so it must be an absolute URL.
    static let newBaseURL = ExploreObservation.header("New-Base-URL", pattern: "^https?://[^/]+", .must)
    /// How likely a probe is drawn, against 1 for an ordinary operation (``ExploreOperation/weight``).
    static let probe = 0.25

    static let installationOperations: [ExploreOperation] = [
        ExploreOperation(
            name: "register", endpoint: "M1", spec: "flow step 1; API M1", slots: [],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/1/appinstance"
                query: {ri: "true"}
                headers: {Authorization: "App {{ appCode }}"}
                json: {pushServiceToken: "fcm-{{ uuid }}", pushServiceType: Firebase, os: Android}
                """,
            registers: "$.pushRegId"),
        ExploreOperation(
            name: "set-primary", endpoint: "M2", spec: "flow, primary devices; API M2 [D6]", slots: [.device],
            parameters: [ExploreParameter("primary", ["true", "false"])],
            request: """
                method: PATCH
                url: "{{ mobile }}/mobile/1/appinstance/<device>"
                \(mobileAuth)
                json: {isPrimary: <primary>}
                """, effect: .setsPrimary(.device, parameter: "primary")),
        ExploreOperation(
            name: "set-other-primary", endpoint: "M2",
            spec: "flow, primary devices; API M2 (other installation) [D6, D16]",
            slots: [.device, .other], parameters: [ExploreParameter("primary", ["true", "false"])],
            request: """
                method: PATCH
                url: "{{ mobile }}/mobile/1/appinstance/<other>"
                \(mobileAuth)
                json: {isPrimary: <primary>}
                """, effect: .setsPrimary(.other, parameter: "primary")),
        ExploreOperation(
            name: "read-installation", endpoint: "M3", spec: "API M3 [D6]", slots: [.device],
            request: """
                method: GET
                url: "{{ mobile }}/mobile/1/appinstance/<device>"
                \(mobileAuth)
                """,
            reads: true, observations: [primaryFlag, .value("$.appVersion", .must), newBaseURL]),
        ExploreOperation(
            name: "backend-read-installation", endpoint: "B1", spec: "API B1 [D6, D18]", slots: [.device],
            request: """
                method: GET
                url: "{{ backend }}/people/2/contactInformation/push/<device>"
                \(backendAuth)
                """,
            reads: true, observations: [primaryFlag]),
        ExploreOperation(
            name: "backend-set-primary", endpoint: "B2", spec: "flow, primary devices; API B2 [D6]", slots: [.device],
            parameters: [ExploreParameter("primary", ["true", "false"])],
            request: """
                method: PATCH
                url: "{{ backend }}/people/2/contactInformation/push/<device>"
                \(backendAuth)
                json: {isPrimary: <primary>}
                """, effect: .setsPrimary(.device, parameter: "primary")),
        ExploreOperation(
            name: "delete", endpoint: "M11", spec: "flow step 6 (expired registration); API M11", slots: [.device],
            request: """
                method: DELETE
                url: "{{ mobile }}/mobile/1/appinstance/<device>"
                \(mobileAuth)
                """,
            retires: true),
    ]

    static let personalizationOperations: [ExploreOperation] = [
        ExploreOperation(
            name: "personalize", endpoint: "M4", spec: "flow step 2; API M4 [D1, D2, D3, D4, D6, D13]",
            slots: [.device, .person],
            parameters: [
                ExploreParameter("force", queryBooleans), ExploreParameter("primary", queryBooleans),
                ExploreParameter("keepAsLead", queryBooleans),
            ],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/1/appinstance/<device>/personalize"
                query: {forceDepersonalize: "<force>", setDeviceAsPrimary: "<primary>", keepAsLead: "<keepAsLead>"}
                \(userAuth)
                json: {userIdentity: {externalUserId: "<person>"}}
                """,
            observations: [.value("$.externalUserId", .must)], weight: 3,
            effect: .personalizes(force: "force", primary: "primary")),
        ExploreOperation(
            name: "repersonalize", endpoint: "M5", spec: "flow step 2 (Android's repersonalize); API M5, §3.4",
            slots: [.device, .person],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/1/appinstance/<device>/repersonalize"
                \(userAuth)
                json: {userIdentity: {externalUserId: "<person>"}}
                """, effect: .personalizes(force: nil, primary: nil)),
        ExploreOperation(
            name: "depersonalize", endpoint: "M6", spec: "flow step 3 (logout); API M6 [D5]", slots: [.device],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/1/appinstance/<device>/depersonalize"
                \(mobileAuth)
                """,
            statusAssumedBy: "D5", effect: .depersonalizes(.device)),
        ExploreOperation(
            name: "depersonalize-other", endpoint: "M6",
            spec: "flow step 3 (logout of another device); API M6 (other installation), §3.5 [D5, D16]",
            slots: [.device, .other],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/1/appinstance/<other>/depersonalize"
                \(mobileAuth)
                """,
            statusAssumedBy: "D5", effect: .depersonalizes(.other)),
        ExploreOperation(
            name: "read-user", endpoint: "M7", spec: "API M7 [D3, D5, D6, D19]", slots: [.device],
            request: """
                method: GET
                url: "{{ mobile }}/mobile/1/appinstance/<device>/user"
                query: {ri: "true"}
                \(userAuth)
                """,
            reads: true,
            observations: [
                .value("$.externalUserId", .must), .value("$.firstName", .must), .value("$.type", .must),
                .value("$.customAttributes.explorePlan", .must),
                .members(
                    "$.instances", key: "pushRegId", rule: .must, flag: "isPrimary", whenSet: .must,
                    whenClear: .assumed("D6")),
            ]),
        ExploreOperation(
            name: "update-user", endpoint: "M8", spec: "flow step 2 (user data); API M8", slots: [.device],
            parameters: [ExploreParameter("firstName", ["Ana", "Bo"]), ExploreParameter("plan", ["gold", "null"])],
            request: """
                method: PATCH
                url: "{{ mobile }}/mobile/1/appinstance/<device>/user"
                \(userAuth)
                json: {firstName: <firstName>, customAttributes: {explorePlan: <plan>}}
                """, weight: 2, effect: .setsUserData),
        ExploreOperation(
            name: "backend-personalize", endpoint: "B3", spec: "API B3, §4.1 [D2, D4, D6]", slots: [.device, .person],
            parameters: [ExploreParameter("force", booleans), ExploreParameter("primary", booleans)],
            request: """
                method: POST
                url: "{{ backend }}/people/2/contactInformation/push/<device>/personalize"
                query: {forceDepersonalize: "<force>", setDeviceAsPrimary: "<primary>"}
                \(backendAuth)
                json: {identity: {externalId: "<person>"}, attributes: {tags: ["<tag>"]}}
                """,
            observations: [.value("$.externalId", .must)], weight: 2,
            effect: .personalizes(force: "force", primary: "primary")),
        ExploreOperation(
            name: "read-person", endpoint: "B5", spec: "API B5 [D4, D5, D6]", slots: [.person],
            request: """
                method: GET
                url: "{{ backend }}/people/2/persons"
                query: {identifier: "<person>", type: EXTERNAL_ID}
                \(backendAuth)
                """,
            reads: true,
            observations: [
                .value("$.externalId", .must), .value("$.type", .must),
                .value("$.customAttributes.explorePlan", .must),
                .members(
                    "$.contactInformation.push", key: "registrationId", rule: .must, flag: "isPrimary", whenSet: .must,
                    whenClear: .assumed("D6")),
            ]),
        ExploreOperation(
            name: "backend-depersonalize", endpoint: "B4", spec: "API B4 (remote logout) [D5]", slots: [.device],
            request: """
                method: POST
                url: "{{ backend }}/people/2/contactInformation/push/<device>/depersonalize"
                \(backendAuth)
                """,
            statusAssumedBy: "D5", effect: .depersonalizes(.device)),
    ]

    static let pushOperations: [ExploreOperation] = [
        ExploreOperation(
            name: "push-to-user", endpoint: "B6", spec: "API B6 (to.externalUserId) [D7, D17]",
            slots: [.person, .text], parameters: [ExploreParameter("onlyPrimary", booleans)],
            request: """
                method: POST
                url: "{{ backend }}/push/2/message/single"
                \(pushAuth)
                json: {from: "{{ appCode }}", to: {externalUserId: "<person>"}, text: "<text>", targetOnlyPrimaryDevices: <onlyPrimary>}
                """, primaryOnly: "onlyPrimary", weight: 2),
        ExploreOperation(
            name: "push-to-tag", endpoint: "B6", spec: "API B6 (to by tag, §11.4) [D17]", slots: [.person, .text],
            request: """
                method: POST
                url: "{{ backend }}/push/2/message/single"
                \(pushAuth)
                json: {from: "{{ appCode }}", to: {tags: "<tag>"}, text: "<text>"}
                """),
        ExploreOperation(
            name: "push-v3-to-user", endpoint: "B8", spec: "API B8, §11.6 [D7, D17]", slots: [.person, .text],
            parameters: [ExploreParameter("onlyPrimary", booleans)],
            request: """
                method: POST
                url: "{{ backend }}/push/3/messages"
                \(pushAuth)
                json: {messages: [{sender: "{{ appCode }}", destinations: [{type: EXTERNAL_USER_ID, externalUserId: "<person>", targetOnlyPrimaryDevices: <onlyPrimary>}], content: {type: TEXT, text: "<text>"}}]}
                """, primaryOnly: "onlyPrimary", weight: 2),
        ExploreOperation(
            name: "push-multi", endpoint: "B7", spec: "API B7 (two messages: the person, a device) [D17, D18]",
            slots: [.person, .device, .text],
            request: """
                method: POST
                url: "{{ backend }}/push/2/message/multi"
                \(pushAuth)
                json: {messages: [{from: "{{ appCode }}", to: {externalUserId: "<person>"}, text: "<text>"}, {from: "{{ appCode }}", to: {pushRegistrationId: "<device>"}, text: "<text>"}]}
                """),
        ExploreOperation(
            name: "push-to-device", endpoint: "B6", spec: "API B6 (to.pushRegistrationId) [D18]",
            slots: [.device, .text],
            request: """
                method: POST
                url: "{{ backend }}/push/2/message/single"
                \(pushAuth)
                json: {from: "{{ appCode }}", to: {pushRegistrationId: "<device>"}, text: "<text>"}
                """),
        ExploreOperation(
            name: "sync", endpoint: "M14", spec: "flow step 5 (message sync); API M14 [D12, D18]", slots: [.device],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/5/messages"
                query: {platformType: GCM}
                \(mobileAuth)
                json: {}
                """,
            reads: true, observations: [syncedTexts], captures: received),
    ]

    /// What a sync hands out: the push texts it shows, and the id of each message, which the device sends back.
    private static let syncedTexts = ExploreObservation.texts("$.payloads", textKey: "gcm.notification.body", .must)
    private static let received = ExploreCapture("received", path: "$.payloads[*]['gcm.notification.messageId']")

    /// A device's reports on the messages a sync handed it, each drawn from what an earlier sync of the same
    /// installation captured (never an invented id): message sync listing the ids it holds (`mIDs`) and reporting
    /// deliveries (`drIDs`), the delivery report of iOS's notification extension (M15) and the seen report (M16).
    static let reportOperations: [ExploreOperation] = [
        ExploreOperation(
            name: "sync-holding", endpoint: "M14", spec: "flow step 5 (message sync); API M14 (mIDs, §11.1) [D12, D18]",
            slots: [.device], parameters: [ExploreParameter("held", captured: "received")],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/5/messages"
                query: {platformType: GCM}
                \(mobileAuth)
                json: {mIDs: "{{ <held> }}"}
                """,
            reads: true, observations: [syncedTexts], captures: received),
        ExploreOperation(
            name: "sync-reporting", endpoint: "M14",
            spec: "flow step 5 (message sync reporting deliveries); API M14 (mIDs, drIDs, §11.1, §11.2) [D12, D18]",
            slots: [.device],
            parameters: [
                ExploreParameter("held", captured: "received"), ExploreParameter("delivered", captured: "received"),
            ],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/5/messages"
                query: {platformType: GCM}
                \(mobileAuth)
                json: {mIDs: "{{ <held> }}", drIDs: "{{ <delivered> }}"}
                """,
            reads: true, observations: [syncedTexts], weight: 2, effect: .reportsDelivered(parameter: "delivered"),
            captures: received),
        ExploreOperation(
            name: "delivery-report", endpoint: "M15", spec: "API M15 (delivery report, §11.2) [D12]", slots: [.device],
            parameters: [ExploreParameter("delivered", captured: "received")],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/1/messages/deliveryreport"
                \(mobileAuth)
                json: {dlrIds: "{{ <delivered> }}"}
                """, weight: 2, effect: .reportsDelivered(parameter: "delivered")),
        ExploreOperation(
            name: "seen-report", endpoint: "M16", spec: "API M16 (seen report, §11.2) [D12]", slots: [.device],
            parameters: [ExploreParameter("seen", captured: "received")],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/2/messages/seen"
                \(mobileAuth)
                json: {messages: "{{ each <seen> 'messageId' timestampDelta=3 }}"}
                """),
    ]
}
