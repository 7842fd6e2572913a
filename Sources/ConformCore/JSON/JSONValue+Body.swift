import Foundation

extension JSONValue {
    /// The largest HTTP body parsed as JSON to compare, learn ids from or check flow rules on (4 MiB).
    ///
    /// A parsed tree takes up to about 36 times its text (`[{"a":1},…]`), so a 60 MB body would take gigabytes;
    /// a larger body is opaque bytes: compared byte for byte, and nothing is learned from it.
    public static let maxParsedBodyBytes = 4 << 20

    /// `body` as JSON, or `nil` when it is not JSON or is larger than ``maxParsedBodyBytes``.
    public static func parsedBody(_ body: Data) -> JSONValue? {
        guard body.count <= maxParsedBodyBytes else { return nil }
        return try? parse(body, memoryBudget: memoryBudget(forDocumentOf: body.count))
    }
}
