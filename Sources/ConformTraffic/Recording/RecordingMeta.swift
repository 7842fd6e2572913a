import ConformCore
import Foundation

/// `meta.json` of a recording: format version, creation time and what redaction was applied.
public struct RecordingMeta: Sendable, Hashable {
    /// The format version this library writes and reads.
    public static let currentVersion = 1

    public var version: Int
    public var createdAt: Date
    /// Whether secrets were replaced by pseudonyms when the exchanges were written.
    public var redacted: Bool
    /// How pseudonyms were made, e.g. `hmac-sha256/per-recording-key`.
    public var pseudonymScheme: String
    /// One line per active redaction rule, for a reviewer.
    public var redactionRules: [String]
    /// The credentials of the profile's roles the redaction replaced, each by role and pseudonym (never the clear
    /// value): what `check` maps application codes through and `replay --credential ROLE=VALUE` replaces. Empty
    /// in a recording written before roles were named.
    public var credentials: [RedactedCredential]
    /// The origin (`scheme://host:port`) of each upstream a reverse proxy forwarded to, by upstream name (`mobile`,
    /// `backend`, or `*` for one upstream serving every path): what an implementation that names its own origin
    /// (M12's `baseUrl`) answered with, which a replay reads as the target's. Empty in a recording written before
    /// origins were stored, and for one whose upstream was in process or chosen per request (a forward proxy, whose
    /// exchanges keep their absolute URLs).
    public var upstreams: [String: String]

    public init(
        version: Int = RecordingMeta.currentVersion, createdAt: Date, redacted: Bool, pseudonymScheme: String,
        redactionRules: [String], credentials: [RedactedCredential] = [], upstreams: [String: String] = [:]
    ) {
        self.version = version
        self.createdAt = ISOTimestamp.truncatedToMilliseconds(createdAt)
        self.redacted = redacted
        self.pseudonymScheme = pseudonymScheme
        self.redactionRules = redactionRules
        self.credentials = credentials
        self.upstreams = upstreams
    }

    /// The origin an exchange recorded from `upstream` was answered by, when the metadata names it.
    public func upstreamOrigin(_ upstream: String) -> String? { upstreams[upstream] ?? upstreams["*"] }

    /// Whether `text` is an origin a recording may name: `http` or `https`, a host, perhaps a port, nothing else.
    public static func isOrigin(_ text: String) -> Bool {
        guard text.hasPrefix("http://") || text.hasPrefix("https://"), text.utf8.count <= 2048,
            HTTPSyntax.baseURLProblem(text + "/") == nil
        else { return false }
        return URLParts(text).origin == text
    }

    /// The JSON text written to `meta.json` (pretty, stable key order, trailing newline).
    public func jsonText() -> String {
        var redaction = JSONObject()
        redaction["enabled"] = .bool(redacted)
        redaction["pseudonyms"] = .string(pseudonymScheme)
        redaction["rules"] = .array(redactionRules.map { .string($0) })
        if redacted { redaction["credentials"] = .array(credentials.map(\.json)) }
        var value = JSONObject()
        value["format"] = "conform-recording"
        value["version"] = .int(version)
        value["createdAt"] = .string(ISOTimestamp.format(createdAt))
        value["redaction"] = .object(redaction)
        if !upstreams.isEmpty {
            var origins = JSONObject()
            for (name, origin) in upstreams.sorted(by: { $0.key < $1.key }) { origins[name] = .string(origin) }
            value["upstreams"] = .object(origins)
        }
        return JSONValue.object(value).serialized(.pretty) + "\n"
    }

    /// The largest `meta.json` read (1 MiB; the writer's is a few hundred bytes).
    public static let maxBytes = 1 << 20

    /// Reads `meta.json` from a recording directory, opened inside it through no link.
    public static func load(directory: String) throws(RecordingError) -> RecordingMeta {
        let file = (directory as NSString).appendingPathComponent(RecordingLayout.metaFile)
        let data: Data
        do {
            data = try ConfinedFile.read(RecordingLayout.metaFile, in: directory, limit: maxBytes)
        } catch .missing {
            throw RecordingError(
                file: file, message: "missing", help: "a recording directory holds meta.json and exchanges.jsonl")
        } catch {
            throw RecordingError(
                file: file, message: "not read: \(error)",
                help: "a recording directory holds meta.json as a regular file of at most \(maxBytes) bytes, not a link"
            )
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            throw RecordingError(
                file: file, line: error.line, column: error.column, message: error.message, help: "fix the JSON syntax")
        }
        guard case .int(let version)? = value["version"] else {
            throw RecordingError(
                file: file, line: 1, column: 1, message: "$.version: expected an integer", help: "add \"version\": 1")
        }
        guard version <= currentVersion else {
            throw RecordingError(
                file: file, line: 1, column: 1,
                message: "format version \(version) is newer than this tool (\(currentVersion))",
                help: "upgrade conform to read this recording")
        }
        let created = value["createdAt"]?.stringValue.flatMap(ISOTimestamp.parse) ?? Date(timeIntervalSince1970: 0)
        let redaction = value["redaction"]
        var upstreams: [String: String] = [:]
        if let given = value["upstreams"] {
            guard case .object(let members) = given else {
                throw RecordingError(
                    file: file, line: 1, column: 1, message: "$.upstreams: expected an object of upstream origins",
                    help: "write \"upstreams\": {\"mobile\": \"https://mobile.example\"}, or remove it")
            }
            for (name, origin) in members {
                guard let text = origin.stringValue, isOrigin(text) else {
                    throw RecordingError(
                        file: file, line: 1, column: 1,
                        message:
                            "$.upstreams.\(name): expected an origin (http(s)://HOST[:PORT]), got \(origin.serialized())",
                        help:
                            "write the origin the upstream was reached at, e.g. \"https://mobile.example:8443\", or remove it"
                    )
                }
                upstreams[name] = text
            }
        }
        return RecordingMeta(
            version: version, createdAt: created, redacted: redaction?["enabled"]?.boolValue ?? false,
            pseudonymScheme: redaction?["pseudonyms"]?.stringValue ?? "",
            redactionRules: redaction?["rules"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            credentials: RedactedCredential.list(redaction?["credentials"]), upstreams: upstreams)
    }
}
