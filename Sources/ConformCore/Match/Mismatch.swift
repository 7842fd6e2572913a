/// One difference between what was expected and what came, located by a JSON path: the one mismatch type of suite
/// runs, mock sessions, replays and diffs.
public struct Mismatch: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where: `status`, `header Content-Type`, `body` (a whole body), `$.requestError.serviceException.messageId`.
    public var path: String
    /// What was expected, in words or JSON.
    public var expected: String
    /// What came, as JSON text, or `(absent)`.
    public var actual: String
    /// A one-line explanation when the two values alone do not say it.
    public var note: String?

    public init(path: String, expected: String, actual: String, note: String? = nil) {
        self.path = path
        self.expected = expected
        self.actual = actual
        self.note = note
    }

    /// What a missing value is rendered as.
    public static let absent = "(absent)"

    /// The header the mismatch is about (`header ETag` gives `ETag`), if any.
    public var headerName: String? { path.hasPrefix("header ") ? String(path.dropFirst(7)) : nil }

    /// The JSON path into a body the mismatch is about, if any.
    public var bodyPath: String? { path.hasPrefix("$") ? path : nil }

    /// The part of the message: the path, with `body` before a JSON path (`body $.type`).
    public var label: String { bodyPath.map { "body \($0)" } ?? path }

    /// `LABEL: expected E, got A`.
    public var description: String { "\(label): expected \(expected), got \(actual)" }
}
