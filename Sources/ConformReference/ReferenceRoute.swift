import ConformCore

/// The endpoints the reference answers, recognised from the request path alone (scheme and host are ignored).
enum ReferenceRoute: Sendable, Hashable {
    case register  // M1
    case installation(String)  // M2, M3, M11
    case personalize(String)  // M4
    case repersonalize(String)  // M5
    case depersonalize(String)  // M6
    case user(String)  // M7, M8
    case session(String)  // M9
    case customEvents(String)  // M10
    case baseURL  // M12
    case messageSync  // M14
    case deliveryReport  // M15
    case seen  // M16
    case pushInstance(String)  // B1, B2
    case backendPersonalize(String)  // B3
    case backendDepersonalize(String)  // B4
    case persons  // B5
    case pushSingle  // B6
    case pushMulti  // B7
    case pushV3  // B8

    /// One row of the route table: a path pattern (`{id}` stands for one segment), the route it names, and the
    /// API id of each method it answers.
    struct Entry: Sendable {
        var pattern: String
        var make: @Sendable (String) -> ReferenceRoute
        var endpoints: [(method: HTTPMethod, id: String, answersWithBody: Bool)]
        /// The pattern's segments, split once: every request is matched against the table.
        let segments: [String]

        init(
            pattern: String, make: @escaping @Sendable (String) -> ReferenceRoute,
            endpoints: [(method: HTTPMethod, id: String, answersWithBody: Bool)]
        ) {
            self.pattern = pattern
            self.make = make
            self.endpoints = endpoints
            segments = pattern.split(separator: "/").map(String.init)
        }
    }

    /// The route table: every endpoint the reference serves, in the order paths are tried (literal paths before
    /// patterns of the same length). `answersWithBody` tells which successes carry a body the SDK reads (§2).
    static let table: [Entry] = [
        Entry(pattern: "/mobile/1/appinstance", make: { _ in .register }, endpoints: [(.post, "M1", true)]),
        Entry(pattern: "/mobile/1/baseurl", make: { _ in .baseURL }, endpoints: [(.get, "M12", true)]),
        Entry(pattern: "/mobile/5/messages", make: { _ in .messageSync }, endpoints: [(.post, "M14", true)]),
        Entry(pattern: "/people/2/persons", make: { _ in .persons }, endpoints: [(.get, "B5", true)]),
        Entry(pattern: "/push/3/messages", make: { _ in .pushV3 }, endpoints: [(.post, "B8", true)]),
        Entry(
            pattern: "/mobile/1/messages/deliveryreport", make: { _ in .deliveryReport },
            endpoints: [(.post, "M15", false)]),
        Entry(pattern: "/mobile/2/messages/seen", make: { _ in .seen }, endpoints: [(.post, "M16", false)]),
        Entry(pattern: "/push/2/message/single", make: { _ in .pushSingle }, endpoints: [(.post, "B6", true)]),
        Entry(pattern: "/push/2/message/multi", make: { _ in .pushMulti }, endpoints: [(.post, "B7", true)]),
        Entry(
            pattern: "/mobile/1/appinstance/{id}", make: { .installation($0) },
            endpoints: [(.get, "M3", true), (.patch, "M2", false), (.delete, "M11", false)]),
        Entry(
            pattern: "/mobile/1/appinstance/{id}/personalize", make: { .personalize($0) },
            endpoints: [(.post, "M4", true)]),
        Entry(
            pattern: "/mobile/1/appinstance/{id}/repersonalize", make: { .repersonalize($0) },
            endpoints: [(.post, "M5", false)]),
        Entry(
            pattern: "/mobile/1/appinstance/{id}/depersonalize", make: { .depersonalize($0) },
            endpoints: [(.post, "M6", false)]),
        Entry(
            pattern: "/mobile/1/appinstance/{id}/user", make: { .user($0) },
            endpoints: [(.get, "M7", true), (.patch, "M8", false)]),
        Entry(
            pattern: "/mobile/1/appinstance/{id}/user/events/session", make: { .session($0) },
            endpoints: [(.post, "M9", false)]),
        Entry(
            pattern: "/mobile/1/appinstance/{id}/user/events/custom", make: { .customEvents($0) },
            endpoints: [(.post, "M10", false)]),
        Entry(
            pattern: "/people/2/contactInformation/push/{id}", make: { .pushInstance($0) },
            endpoints: [(.get, "B1", true), (.patch, "B2", true)]),
        Entry(
            pattern: "/people/2/contactInformation/push/{id}/personalize", make: { .backendPersonalize($0) },
            endpoints: [(.post, "B3", true)]),
        Entry(
            pattern: "/people/2/contactInformation/push/{id}/depersonalize", make: { .backendDepersonalize($0) },
            endpoints: [(.post, "B4", false)]),
    ]

    /// The route for `path`, or `nil` when no endpoint lives there.
    init?(path: String) {
        guard let (entry, id) = Self.entry(path: path) else { return nil }
        self = entry.make(id)
    }

    /// The table row `path` matches and the segment `{id}` stood for (empty when the pattern has none).
    static func entry(path: String) -> (Entry, String)? {
        // An ASCII path without escapes is matched on its bytes, with no segment copied but the id: every request
        // is routed, and a path's segments decode to themselves.
        if let found = path.utf8.withContiguousStorageIfAvailable({ plainEntry($0) }), let found { return found }
        var segments = Substring(path).utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map {
            percentDecode(Substring($0))
        }
        if segments.last == "" { segments.removeLast() }
        for entry in table {
            let pattern = entry.segments
            guard pattern.count == segments.count else { continue }
            var id = ""
            let matched = zip(pattern, segments).allSatisfy { wanted, actual in
                guard wanted == "{id}" else { return wanted == actual }
                id = actual
                return true
            }
            if matched { return (entry, id) }
        }
        return nil
    }

    /// ``entry(path:)`` for a path of ASCII bytes without `%`: `.some(nil)` when no row matches, `nil` when the
    /// path needs the decoding comparison.
    private static func plainEntry(_ bytes: UnsafeBufferPointer<UInt8>) -> (Entry, String)?? {
        guard !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 >= 0x80 }) else { return nil }
        var count = 0
        var inSegment = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                inSegment = false
            } else if !inSegment {
                inSegment = true
                count += 1
            }
        }
        for entry in table where entry.segments.count == count {
            var id = ""
            var position = 0
            var matched = true
            for wanted in entry.segments {
                while bytes[position] == UInt8(ascii: "/") { position += 1 }
                var end = position
                while end < bytes.count, bytes[end] != UInt8(ascii: "/") { end += 1 }
                let actual = UnsafeBufferPointer(rebasing: bytes[position..<end])
                if wanted == "{id}" {
                    id = String(decoding: actual, as: UTF8.self)
                } else if !actual.elementsEqual(wanted.utf8) {
                    matched = false
                    break
                }
                position = end
            }
            if matched { return .some((entry, id)) }
        }
        return .some(nil)
    }

    /// The methods the endpoint accepts.
    var methods: [HTTPMethod] {
        Self.table.first { $0.make("") == self.withoutId }?.endpoints.map(\.method) ?? []
    }

    /// The same route with its id blanked, to find its table row.
    private var withoutId: ReferenceRoute {
        switch self {
        case .installation: .installation("")
        case .personalize: .personalize("")
        case .repersonalize: .repersonalize("")
        case .depersonalize: .depersonalize("")
        case .user: .user("")
        case .session: .session("")
        case .customEvents: .customEvents("")
        case .pushInstance: .pushInstance("")
        case .backendPersonalize: .backendPersonalize("")
        case .backendDepersonalize: .backendDepersonalize("")
        default: self
        }
    }

    /// Whether the endpoint belongs to the mobile API (else the backend API).
    var isMobile: Bool {
        switch self {
        case .pushInstance, .backendPersonalize, .backendDepersonalize, .persons, .pushSingle, .pushMulti, .pushV3:
            false
        default: true
        }
    }
}

/// One endpoint the reference serves: its API id (`M4`, `B6`), method and path pattern, from the route table.
public struct ReferenceEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The id in the API reference's endpoint table (`M1` … `M16`, `B1` … `B8`).
    public var id: String
    public var method: HTTPMethod
    /// The path, with `{id}` for the pushRegistrationId segment.
    public var path: String
    /// Whether a success carries a body the SDK or the backend reads (else it is void, §2).
    public var answersWithBody: Bool

    public var description: String { "\(id) \(method) \(path)" }

    /// Every endpoint the reference answers, from its route table, in the API reference's order (M1 … B8).
    public static let all: [ReferenceEndpoint] = ReferenceRoute.table.flatMap { entry in
        entry.endpoints.map {
            ReferenceEndpoint(id: $0.id, method: $0.method, path: entry.pattern, answersWithBody: $0.answersWithBody)
        }
    }.sorted { $0.order < $1.order }

    /// Mobile endpoints before backend ones, then by number.
    private var order: Int {
        let number = Int(id.dropFirst()) ?? 0
        return id.hasPrefix("M") ? number : 1000 + number
    }

    /// The endpoint a request with `method` (after `X-HTTP-Method-Override`) to `path` reaches, or `nil`.
    public static func matching(method: HTTPMethod, path: String) -> ReferenceEndpoint? {
        guard let (entry, _) = ReferenceRoute.entry(path: path) else { return nil }
        return all.first { $0.path == entry.pattern && $0.method == method }
    }
}
