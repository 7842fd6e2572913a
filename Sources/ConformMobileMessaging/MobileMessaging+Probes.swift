import ConformCore

/// The probes of Mobile Messaging's exploration: single requests of a kind the flow must get right, drawn less often
/// than the operations that build a history (docs/explore.md, "What it generates").
extension MobileMessaging {
    /// Calls that change nothing a history depends on, or must be refused, each showing what one request of its
    /// kind must do: Android's PATCH as a POST with `X-HTTP-Method-Override` (D14), a login with no identity (D1),
    /// an externalUserId changed by PATCH user (to another person's: a conflict, D1; in JWT mode: refused, D9),
    /// backend calls with the application code or without the `AppCode` header (D11), the base URL (M12, §1.1) and
    /// an installation read under it (the runner follows a base URL the implementation answers, as the bundled
    /// suites do, and no other host), a session in Android's time format (§3.7), the system data and the
    /// registration flag of M2 (§3.2, D12), an empty v3 push (§4.5), and the status a push to a person reports
    /// (D7). They are drawn less often than the operations that build a history (``probe``).
    static let probeOperations: [ExploreOperation] = [
        ExploreOperation(
            name: "update-user-android", endpoint: "M8", spec: "flow step 2 (user data, Android's PATCH); API M8 [D14]",
            slots: [.device], parameters: [ExploreParameter("firstName", ["Ana", "Bo"])],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/1/appinstance/<device>/user"
                headers: {Authorization: "<userAuth>", pushregistrationid: "<device>", X-HTTP-Method-Override: PATCH}
                json: {firstName: <firstName>}
                """, weight: probe, effect: .setsUserData),
        ExploreOperation(
            name: "personalize-without-identity", endpoint: "M4", spec: "flow step 2; API M4 (no identity) [D1]",
            slots: [.device],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/1/appinstance/<device>/personalize"
                \(userAuth)
                json: {userIdentity: {}}
                """, weight: probe),
        ExploreOperation(
            name: "update-user-identity", endpoint: "M8",
            spec: "API M8 (externalUserId), §3.3 [D1, D9]", slots: [.device, .person],
            request: """
                method: PATCH
                url: "{{ mobile }}/mobile/1/appinstance/<device>/user"
                \(userAuth)
                json: {externalUserId: "<person>"}
                """,
            // That a conflict with another person's identity is refused is inferred (D1).
            assumedRefusals: ["USER_MERGE_INTERRUPTED": "D1"], weight: probe),
        ExploreOperation(
            name: "backend-read-installation-as-app", endpoint: "B1", spec: "API B1 (an application code) [D11]",
            slots: [.device],
            request: """
                method: GET
                url: "{{ backend }}/people/2/contactInformation/push/<device>"
                headers: {Authorization: "App {{ appCode }}", AppCode: "{{ appCode }}"}
                """, weight: probe),
        ExploreOperation(
            name: "backend-read-installation-without-app-code", endpoint: "B1",
            spec: "API B1 (no AppCode header), §4 [D11]", slots: [.device],
            request: """
                method: GET
                url: "{{ backend }}/people/2/contactInformation/push/<device>"
                \(pushAuth)
                """, weight: probe),
        ExploreOperation(
            name: "base-url", endpoint: "M12", spec: "flow step 1; API M12, §1.1", slots: [.device],
            request: """
                method: GET
                url: "{{ mobile }}/mobile/1/baseurl"
                \(mobileAuth)
                """,
            observations: [newBaseURL], weight: probe, captures: ExploreCapture("baseUrl", path: "$.baseUrl")),
        installationRead(
            "read-installation-at-base-url", "M3", spec: "flow step 1; API M3 under the base URL M12 answered, §1.1",
            parameters: [ExploreParameter("base", captured: "baseUrl")],
            url: "{{ <base> }}/mobile/1/appinstance/<device>", mobileAuth, weight: probe),
        ExploreOperation(
            name: "session", endpoint: "M9", spec: "flow step 4 (sessions); API M9, §3.7", slots: [.device],
            parameters: [ExploreParameter("offset", ["+01:00", "+0100"])],
            request: """
                method: POST
                url: "{{ mobile }}/mobile/1/appinstance/<device>/user/events/session"
                headers: {Authorization: "App {{ appCode }}", pushregistrationid: "<device>", sessionId: "<device>_{{ epochMillis }}"}
                json: {sessionStarts: ["2026-01-05T10:00:00<offset>"]}
                """, weight: probe),
        installationPatch(
            "update-system-data", spec: "flow step 1 (an app update); API M2 (system data), §3.2",
            ExploreParameter("appVersion", ["1.0.0", "2.0.0"]),
            json: #"{appVersion: "<appVersion>", sdkVersion: "15.2.0"}"#
        ),
        installationPatch(
            "set-registration-enabled", spec: "API M2 (regEnabled), §3.2 [D12]",
            ExploreParameter("enabled", ["false", "true"]), json: "{regEnabled: <enabled>}"),
        ExploreOperation(
            name: "push-v3-empty", endpoint: "B8", spec: "API B8 (no messages), §4.5", slots: [],
            request: """
                method: POST
                url: "{{ backend }}/push/3/messages"
                \(pushAuth)
                json: {messages: []}
                """,
            refusalObservations: [.value("$.errorCode", .must)], weight: probe),
        singlePush(
            "push-to-user-status", spec: "API B6 (the status it reports) [D7, D17]", to: .person,
            #"externalUserId: "<person>""#,
            // Whether the push reached a device at all: the group of its status (the name within it may vary).
            observations: [.value("$.bulks[0].status.groupName", .assumed("D7"))], weight: probe),
    ]

    /// Calls of the JWT mode with a credential that must not open the user's data (D9): a token signed with another
    /// key, for another person, with another application code or an unknown key id, and the application code alone.
    static let jwtProbeOperations: [ExploreOperation] = [
        jwtProbe("read-user-forged-token", "a JWT signed with another key", "sub=<sub> secret=jwtWrongSecret"),
        jwtProbe(
            "read-user-as-other", "a JWT for the person named", "sub=<personVariable> secret=jwtSecret", [.person]),
        jwtProbe(
            "read-user-wrong-application", "a JWT for another application code",
            "sub=<sub> secret=jwtSecret", app: "jwtWrongAppCode"),
        jwtProbe(
            "read-user-unknown-key-id", "a JWT naming a key id the application has not",
            "sub=<sub> secret=jwtSecret", kid: "jwtUnknownKeyId"),
        ExploreOperation(
            name: "read-user-with-app-code", endpoint: "M7", spec: "API M7 (the application code in JWT mode) [D9]",
            slots: [.device],
            request: """
                method: GET
                url: "{{ mobile }}/mobile/1/appinstance/<device>/user"
                \(mobileAuth)
                """, applications: ["jwt"], weight: probe),
    ]

    private static func jwtProbe(
        _ name: String, _ what: String, _ claims: String, _ slots: Set<ExploreSlot> = [], app: String = "appCode",
        kid: String = "jwtKeyId"
    ) -> ExploreOperation {
        ExploreOperation(
            name: name, endpoint: "M7", spec: "API M7 (\(what)) [D9]", slots: slots.union([.device]),
            request: """
                method: GET
                url: "{{ mobile }}/mobile/1/appinstance/<device>/user"
                headers: {Authorization: "Bearer {{ jwt \(claims) kid=\(kid) app=\(app) }}", pushregistrationid: "<device>"}
                """, applications: ["jwt"], weight: probe)
    }

    /// A probe that patches the installation `<device>` (M2) with `json`, drawing `parameter`.
    private static func installationPatch(
        _ name: String, spec: String, _ parameter: ExploreParameter, json: String
    ) -> ExploreOperation {
        ExploreOperation(
            name: name, endpoint: "M2", spec: spec, slots: [.device], parameters: [parameter],
            request: """
                method: PATCH
                url: "{{ mobile }}/mobile/1/appinstance/<device>"
                \(mobileAuth)
                json: \(json)
                """, weight: probe)
    }
}
