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
        primarySetting(
            "set-primary", "M2", spec: "flow, primary devices; API M2 [D6]", of: .device,
            url: "{{ mobile }}/mobile/1/appinstance/<device>", mobileAuth),
        primarySetting(
            "set-other-primary", "M2", spec: "flow, primary devices; API M2 (other installation) [D6, D16]", of: .other,
            url: "{{ mobile }}/mobile/1/appinstance/<other>", mobileAuth),
        installationRead(
            "read-installation", "M3", spec: "API M3 [D6]", url: "{{ mobile }}/mobile/1/appinstance/<device>",
            mobileAuth, also: [.value("$.appVersion", .must), newBaseURL]),
        installationRead(
            "backend-read-installation", "B1", spec: "API B1 [D6, D18]",
            url: "{{ backend }}/people/2/contactInformation/push/<device>", backendAuth),
        primarySetting(
            "backend-set-primary", "B2", spec: "flow, primary devices; API B2 [D6]", of: .device,
            url: "{{ backend }}/people/2/contactInformation/push/<device>", backendAuth),
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
        depersonalizing(
            "depersonalize", "M6", spec: "flow step 3 (logout); API M6 [D5]", of: .device,
            url: "{{ mobile }}/mobile/1/appinstance/<device>/depersonalize", mobileAuth),
        depersonalizing(
            "depersonalize-other", "M6",
            spec: "flow step 3 (logout of another device); API M6 (other installation), §3.5 [D5, D16]", of: .other,
            url: "{{ mobile }}/mobile/1/appinstance/<other>/depersonalize", mobileAuth),
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
        depersonalizing(
            "backend-depersonalize", "B4", spec: "API B4 (remote logout) [D5]", of: .device,
            url: "{{ backend }}/people/2/contactInformation/push/<device>/depersonalize", backendAuth),
    ]

    static let pushOperations: [ExploreOperation] = [
        singlePush(
            "push-to-user", spec: "API B6 (to.externalUserId) [D7, D17]", to: .person, #"externalUserId: "<person>""#,
            onlyPrimary: true, weight: 2),
        singlePush("push-to-tag", spec: "API B6 (to by tag, §11.4) [D17]", to: .person, #"tags: "<tag>""#),
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
        singlePush(
            "push-to-device", spec: "API B6 (to.pushRegistrationId) [D18]", to: .device,
            #"pushRegistrationId: "<device>""#),
        messageSync("sync", spec: "flow step 5 (message sync); API M14 [D12, D18]"),
    ]

    /// What a sync hands out: the push texts it shows, and the id of each message, which the device sends back.
    private static let syncedTexts = ExploreObservation.texts("$.payloads", textKey: "gcm.notification.body", .must)
    private static let received = ExploreCapture("received", path: "$.payloads[*]['gcm.notification.messageId']")

    /// A device's reports on the messages a sync handed it, each drawn from what an earlier sync of the same
    /// installation captured (never an invented id): message sync listing the ids it holds (`mIDs`) and reporting
    /// deliveries (`drIDs`), the delivery report of iOS's notification extension (M15) and the seen report (M16).
    static let reportOperations: [ExploreOperation] = [
        messageSync("sync-holding", spec: "flow step 5 (message sync); API M14 (mIDs, §11.1) [D12, D18]", held: true),
        messageSync(
            "sync-reporting",
            spec: "flow step 5 (message sync reporting deliveries); API M14 (mIDs, drIDs, §11.1, §11.2) [D12, D18]",
            held: true, delivered: true, weight: 2),
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

    /// An operation that sets the primary flag of the installation in `slot` (at `url`) to a drawn `primary`.
    static func primarySetting(
        _ name: String, _ endpoint: String, spec: String, of slot: ExploreSlot, url: String, _ headers: String
    ) -> ExploreOperation {
        ExploreOperation(
            name: name, endpoint: endpoint, spec: spec, slots: [.device, slot],
            parameters: [ExploreParameter("primary", ["true", "false"])],
            request: """
                method: PATCH
                url: "\(url)"
                \(headers)
                json: {isPrimary: <primary>}
                """, effect: .setsPrimary(slot, parameter: "primary"))
    }

    /// A read of the installation `<device>` at `url`, whose answer shows its primary flag, and `also` what else.
    static func installationRead(
        _ name: String, _ endpoint: String, spec: String, parameters: [ExploreParameter] = [], url: String,
        _ headers: String, also: [ExploreObservation] = [], weight: Double = 1
    ) -> ExploreOperation {
        ExploreOperation(
            name: name, endpoint: endpoint, spec: spec, slots: [.device], parameters: parameters,
            request: """
                method: GET
                url: "\(url)"
                \(headers)
                """,
            reads: true, observations: [primaryFlag] + also, weight: weight)
    }

    /// A logout of the installation in `slot` (at `url`), whose status class of success is only assumed (D5).
    static func depersonalizing(
        _ name: String, _ endpoint: String, spec: String, of slot: ExploreSlot, url: String, _ headers: String
    ) -> ExploreOperation {
        ExploreOperation(
            name: name, endpoint: endpoint, spec: spec, slots: [.device, slot],
            request: """
                method: POST
                url: "\(url)"
                \(headers)
                """,
            statusAssumedBy: "D5", effect: .depersonalizes(slot))
    }

    /// A push of one text by the v2 single-message API (B6) to the recipient `to` names (a member of the request's
    /// `to`); `onlyPrimary` draws whether it reaches primary devices only.
    static func singlePush(
        _ name: String, spec: String, to recipient: ExploreSlot, _ to: String, onlyPrimary: Bool = false,
        observations: [ExploreObservation] = [], weight: Double = 1
    ) -> ExploreOperation {
        ExploreOperation(
            name: name, endpoint: "B6", spec: spec, slots: [recipient, .text],
            parameters: onlyPrimary ? [ExploreParameter("onlyPrimary", booleans)] : [],
            request: """
                method: POST
                url: "{{ backend }}/push/2/message/single"
                \(pushAuth)
                json: {from: "{{ appCode }}", to: {\(to)}, text: "<text>"\(onlyPrimary ? ", targetOnlyPrimaryDevices: <onlyPrimary>" : "")}
                """, observations: observations, primaryOnly: onlyPrimary ? "onlyPrimary" : nil, weight: weight)
    }

    /// A message sync (M14) of `<device>`, which shows the pushes it hands out and captures their ids: `held` sends
    /// the ids of messages an earlier sync handed out as held (`mIDs`), `delivered` reports them delivered (`drIDs`).
    static func messageSync(
        _ name: String, spec: String, held: Bool = false, delivered: Bool = false, weight: Double = 1
    ) -> ExploreOperation {
        let sent = [held ? "held" : nil, delivered ? "delivered" : nil].compactMap { $0 }
        let members = [held ? #"mIDs: "{{ <held> }}""# : nil, delivered ? #"drIDs: "{{ <delivered> }}""# : nil]
        return ExploreOperation(
            name: name, endpoint: "M14", spec: spec, slots: [.device],
            parameters: sent.map { ExploreParameter($0, captured: "received") },
            request: """
                method: POST
                url: "{{ mobile }}/mobile/5/messages"
                query: {platformType: GCM}
                \(mobileAuth)
                json: {\(members.compactMap { $0 }.joined(separator: ", "))}
                """,
            reads: true, observations: [syncedTexts], weight: weight,
            effect: delivered ? .reportsDelivered(parameter: "delivered") : nil, captures: received)
    }
}
