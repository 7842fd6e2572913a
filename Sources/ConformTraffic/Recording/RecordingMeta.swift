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

    public init(
        version: Int = RecordingMeta.currentVersion, createdAt: Date, redacted: Bool, pseudonymScheme: String,
        redactionRules: [String], credentials: [RedactedCredential] = []
    ) {
        self.version = version
        self.createdAt = ISOTimestamp.truncatedToMilliseconds(createdAt)
        self.redacted = redacted
        self.pseudonymScheme = pseudonymScheme
        self.redactionRules = redactionRules
        self.credentials = credentials
    }

    /// The JSON text written to `meta.json` (pretty, stable key order, trailing newline).
    public func jsonText() -> String {
        var redaction = JSONObject()
        redaction["enabled"] = .bool(redacted)
        redaction["pseudonyms"] = .string(pseudonymScheme)
        redaction["rules"] = .array(redactionRules.map { .string($0) })
        if redacted { redaction["credentials"] = .array(credentials.map(\.json)) }
        let value: JSONValue = [
            "format": "conform-recording",
            "version": .int(version),
            "createdAt": .string(ISOTimestamp.format(createdAt)),
            "redaction": .object(redaction),
        ]
        return value.serialized(.pretty) + "\n"
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
        return RecordingMeta(
            version: version, createdAt: created, redacted: redaction?["enabled"]?.boolValue ?? false,
            pseudonymScheme: redaction?["pseudonyms"]?.stringValue ?? "",
            redactionRules: redaction?["rules"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            credentials: RedactedCredential.list(redaction?["credentials"]))
    }
}
