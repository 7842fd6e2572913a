/// A behaviour a *correct* production backend may legitimately have, so a suite can prove it passes every
/// conforming implementation and not only this one (an open set).
///
/// Variants compose with each other and with ``ReferenceFault``s: a fault still flips its behaviour under a variant.
public struct ReferenceVariant: ReferenceSwitch {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    // Timing (D18).
    /// A push is accepted at once but reaches message sync (M14) only 200–800 ms later, in send order per device.
    public static let asyncDelivery = ReferenceVariant(rawValue: "asyncDelivery")
    /// Backend People reads (B1 GET, B5) show the state as it was about 300 ms earlier.
    public static let eventualPeople = ReferenceVariant(rawValue: "eventualPeople")
    /// Every response, success or error, arrives 150 ms late.
    public static let latency = ReferenceVariant(rawValue: "latency")

    // JSON shape (D19).
    /// Optional members the reference leaves out are sent as `null` (scalars, objects) or `[]` (lists).
    public static let explicitNulls = ReferenceVariant(rawValue: "explicitNulls")
    /// Every protocol object of every JSON response carries unknown extra members (never inside user-data maps).
    public static let extraMembers = ReferenceVariant(rawValue: "extraMembers")

    /// JSON responses are laid out differently: indented, members in reverse order, `/` and non-ASCII escaped.
    public static let otherJSONStyle = ReferenceVariant(rawValue: "otherJSONStyle")
    /// Lists the protocol does not order (devices, registrations, payloads, tags, emails, phones, v3 entries) come
    /// in reverse order.
    public static let otherListOrder = ReferenceVariant(rawValue: "otherListOrder")

    // Answers the protocol leaves open.
    /// The void mobile endpoints (their answer is a 2xx the SDK ignores: M2, M5, M6, M8–M11, M15, M16) answer 204
    /// with no body; B4, documented as 200, keeps it.
    public static let noContent = ReferenceVariant(rawValue: "noContent")
    /// A push that reaches devices reports another pending status: v2 bulks `PENDING_ENROUTE` instead of
    /// `PENDING_ACCEPTED`, v3 entries `PENDING_ACCEPTED` instead of `PENDING_ENROUTE`.
    public static let otherPushStatuses = ReferenceVariant(rawValue: "otherPushStatuses")
    /// Every copy of one push (one message of B6, B7, B8) carries the same messageId on every device it reaches.
    public static let sharedMessageId = ReferenceVariant(rawValue: "sharedMessageId")

    // Answers where the sources are silent (decisions marked assumed).
    /// Other statuses, messageIds and texts wherever `decisions.md` marks the reference's answer as assumed.
    public static let otherAssumedAnswers = ReferenceVariant(rawValue: "otherAssumedAnswers")
    /// pushRegIds, messageIds and bulkIds that are not UUIDs.
    public static let opaqueIds = ReferenceVariant(rawValue: "opaqueIds")
    /// Every mobile response carries `New-Base-URL` (§1.1) naming the base URL the request came to, and M12 answers it.
    public static let newBaseURL = ReferenceVariant(rawValue: "newBaseURL")

    // Wire format.
    /// Success responses use `Transfer-Encoding: chunked` instead of `Content-Length` (errors keep it, D15).
    public static let chunked = ReferenceVariant(rawValue: "chunked")
    /// Response header names are lower-case, in another order, with a `date` header.
    public static let headerCase = ReferenceVariant(rawValue: "headerCase")
    /// Every response carries `Connection: close` and the server closes the connection after it.
    public static let connectionClose = ReferenceVariant(rawValue: "connectionClose")

    /// Every variant this build knows, in a stable order.
    public static let allCases: [ReferenceVariant] = [
        .asyncDelivery, .eventualPeople, .explicitNulls, .extraMembers, .otherAssumedAnswers, .chunked, .headerCase,
        .latency, .opaqueIds, .connectionClose, .newBaseURL, .otherJSONStyle, .otherListOrder, .noContent,
        .otherPushStatuses, .sharedMessageId,
    ]

    /// How late every response is under ``latency``.
    public static let responseLatency: Duration = .milliseconds(150)
    /// The range, in milliseconds, from which ``asyncDelivery`` draws each push's delay.
    public static let deliveryDelayMilliseconds: ClosedRange<Int> = 200...800
    /// How far backend People reads lag behind writes under ``eventualPeople`` (at least this, at most 50 ms more).
    public static let peopleReadLag: Duration = .milliseconds(300)

    public static let summaries: [String: String] = [
        "asyncDelivery": "a push reaches message sync 200–800 ms after it is accepted, in send order per device (D18)",
        "eventualPeople": "backend People reads (B1 GET, B5) show the state of about 300 ms earlier (D18)",
        "explicitNulls": "optional members are sent as null or [] instead of being left out (D19)",
        "extraMembers": "protocol objects carry unknown extra members (not inside user-data maps)",
        "otherAssumedAnswers":
            "other statuses, messageIds and texts where decisions are assumed (D1, D2, D5, D7–D11, D16, D17)",
        "chunked": "success responses are chunked, without Content-Length (errors keep it, D15)",
        "headerCase": "response header names are lower-case and in another order",
        "latency": "every response arrives 150 ms late",
        "opaqueIds": "pushRegIds, messageIds and bulkIds are opaque tokens, not UUIDs",
        "connectionClose": "every response carries Connection: close and the connection is closed",
        "newBaseURL": "every mobile response carries a New-Base-URL header naming where the API is served (§1.1)",
        "otherJSONStyle": "JSON answers are indented, members in reverse order, / and non-ASCII escaped",
        "otherListOrder": "unordered lists (devices, registrations, payloads, tags, emails, phones) come reversed",
        "noContent": "void mobile endpoints (M2, M5, M6, M8–M11, M15, M16) answer 204 with no body",
        "otherPushStatuses": "a push that reaches devices reports PENDING_ENROUTE (v2) or PENDING_ACCEPTED (v3)",
        "sharedMessageId": "every copy of one push carries the same messageId on every device it reaches (D12)",
    ]
}
