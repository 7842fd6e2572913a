/// One difference between what was expected and what came, located by a JSON path.
public struct Mismatch: Sendable, Hashable, Codable {
    /// Where: `status`, `header Content-Type`, `$.requestError.serviceException.messageId`.
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
}
