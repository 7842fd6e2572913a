import Foundation

/// One difference between what was expected and what came, located by a JSON path: the one mismatch type of suite
/// runs, mock sessions, replays and diffs.
public struct Mismatch: Sendable, Hashable, CustomStringConvertible {
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

    /// A body that a JSON body spec expected but that is not JSON; `actual` says what came instead.
    public static func notJSON(actual: String, _ error: JSONParseError) -> Mismatch {
        Mismatch(path: "body", expected: "a JSON body", actual: actual, note: error.description)
    }

    /// The mismatches `judge` finds in `body` read as JSON, or the one mismatch of a body that is not JSON.
    public static func inJSONBody(_ body: Data, _ judge: (JSONValue) -> [Mismatch]) -> [Mismatch] {
        switch Result(catching: { () throws(JSONParseError) in try JSONValue.parse(body) }) {
        case .success(let json): judge(json)
        case .failure(let error): [notJSON(actual: "\(body.count) bytes", error)]
        }
    }

    /// The header the mismatch is about (`header ETag` gives `ETag`), if any.
    public var headerName: String? { path.hasPrefix("header ") ? String(path.dropFirst(7)) : nil }

    /// The JSON path into a body the mismatch is about, if any.
    public var bodyPath: String? { path.hasPrefix("$") ? path : nil }

    /// The part of the message: the path, with `body` before a JSON path (`body $.type`).
    public var label: String { bodyPath.map { "body \($0)" } ?? path }

    /// `LABEL: expected E, got A`.
    public var description: String { "\(label): expected \(expected), got \(actual)" }
}
