import ConformCore
import Foundation

/// Something the user did in the app, as the app's test harness reports it: the flow's rules need these to know
/// when a login, logout, session expiry or app update happened, which HTTP traffic alone cannot tell.
public struct AppEvent: Sendable, Hashable {
    /// What happened; an open set of static members, parsed only from ``Kind/all``.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public var name: String
        public var description: String { name }

        /// A user logged in (carries the user's externalUserId).
        public static let login = Kind(name: "login")
        /// The user logged out explicitly.
        public static let logout = Kind(name: "logout")
        /// The logged-in user's session expired.
        public static let sessionExpired = Kind(name: "sessionExpired")
        /// The app was updated to a version with the SDK (carries the externalUserId of a live session, if any).
        public static let appUpdated = Kind(name: "appUpdated")
        /// The app told its user that a personalize failed (the answer to a personalize the server could not take,
        /// when the app does not retry it).
        public static let personalizeFailed = Kind(name: "personalizeFailed")

        public static let all: [Kind] = [.login, .logout, .sessionExpired, .appUpdated, .personalizeFailed]
    }

    /// Position among the exchanges of a recording (shares their numbering); 0 until written.
    public var seq: Int
    public var kind: Kind
    /// When it happened, to the millisecond.
    public var at: Date
    /// The device it happened on; `nil` means the only device of the trace (or, for `appUpdated`, the next one to register).
    public var pushRegId: String?
    /// The logged-in user: required for `login`, the live session's user for `appUpdated`.
    public var externalUserId: String?

    public init(seq: Int = 0, kind: Kind, at: Date, pushRegId: String? = nil, externalUserId: String? = nil) {
        self.seq = seq
        self.kind = kind
        self.at = ISOTimestamp.truncatedToMilliseconds(at)
        self.pushRegId = pushRegId
        self.externalUserId = externalUserId
    }

    /// Longest accepted identifier (Android's limit for externalUserId is 256).
    public static let maxIdentifierLength = 256

    /// The event as one line of `exchanges.jsonl` (with the trailing newline), keys in a fixed order.
    public func jsonLine() -> String {
        var out = "{\"seq\":\(seq),\"event\":"
        JSONValue.writeString(kind.name, into: &out)
        out += ",\"at\":\"\(ISOTimestamp.format(at))\""
        if let pushRegId {
            out += ",\"pushRegId\":"
            JSONValue.writeString(pushRegId, into: &out)
        }
        if let externalUserId {
            out += ",\"externalUserId\":"
            JSONValue.writeString(externalUserId, into: &out)
        }
        return out + "}\n"
    }

    /// The event as a JSON object (for HAR export and the events endpoint's answer).
    public var json: JSONValue {
        var object = JSONObject()
        object["seq"] = .int(seq)
        object["event"] = .string(kind.name)
        object["at"] = .string(ISOTimestamp.format(at))
        if let pushRegId { object["pushRegId"] = .string(pushRegId) }
        if let externalUserId { object["externalUserId"] = .string(externalUserId) }
        return .object(object)
    }

    /// Decodes an event object (`event`, `at`, optional `seq`, `pushRegId`, `externalUserId`); `at` may be
    /// left out only when `defaultTime` is given. Errors name the JSON path of what is wrong.
    public init(json value: JSONValue, defaultTime: Date? = nil) throws(RecordingLineError) {
        guard case .object = value else { throw RecordingLineError(path: "$", message: "expected an object") }
        guard let name = value["event"]?.stringValue else {
            throw RecordingLineError(
                path: "$.event", message: value["event"] == nil ? "missing" : "expected a string")
        }
        guard let kind = Kind.all.first(where: { $0.name == name }) else {
            throw RecordingLineError(
                path: "$.event",
                message: "unknown event '\(name.prefix(40))'; expected one of "
                    + Kind.all.map(\.name).joined(separator: ", "))
        }
        let at: Date
        if let text = value["at"]?.stringValue {
            guard let date = ISOTimestamp.parse(text) else {
                throw RecordingLineError(path: "$.at", message: "'\(text.prefix(40))' is not an ISO-8601 timestamp")
            }
            at = date
        } else if value["at"] == nil, let defaultTime {
            at = defaultTime
        } else {
            throw RecordingLineError(path: "$.at", message: value["at"] == nil ? "missing" : "expected a string")
        }
        var seq = 0
        if let raw = value["seq"] {
            guard case .int(let n) = raw, n >= 0 else {
                throw RecordingLineError(path: "$.seq", message: "expected a non-negative integer")
            }
            seq = n
        }
        let device = try Self.identifier(value, "pushRegId")
        let user = try Self.identifier(value, "externalUserId")
        if kind == .login, user == nil {
            throw RecordingLineError(path: "$.externalUserId", message: "login needs the user's externalUserId")
        }
        self.init(seq: seq, kind: kind, at: at, pushRegId: device, externalUserId: user)
    }

    private static func identifier(_ value: JSONValue, _ key: String) throws(RecordingLineError) -> String? {
        guard let raw = value[key], raw != .null else { return nil }
        guard let text = raw.stringValue else {
            throw RecordingLineError(path: "$.\(key)", message: "expected a string")
        }
        guard text.utf8.count <= maxIdentifierLength else {
            throw RecordingLineError(path: "$.\(key)", message: "longer than \(maxIdentifierLength) bytes")
        }
        return text.isEmpty ? nil : text
    }
}

/// One line of a recording: an exchange, or an app event between exchanges.
public enum TraceRecord: Sendable, Hashable {
    case exchange(RecordedExchange)
    case event(AppEvent)

    /// The shared 1-based number.
    public var seq: Int {
        switch self {
        case .exchange(let e): e.seq
        case .event(let e): e.seq
        }
    }

    /// Decodes one line of `exchanges.jsonl`: a line with an `event` member is an app event.
    public init(jsonLine line: some Collection<UInt8>) throws(RecordingLineError) {
        // Most lines are exchanges as the writer lays them out: read without a tree (the same exchange).
        if let exchange = WrittenLine.exchange(line) {
            self = .exchange(exchange)
            return
        }
        let value = try JSONValueLine.parse(line)
        if case .object = value, value["event"] != nil {
            self = .event(try AppEvent(json: value))
        } else {
            self = .exchange(try RecordedExchange(json: value))
        }
    }
}
