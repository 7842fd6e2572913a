/// `K/N` as a person types it (`--shard`) or a bundle's `bundle.json` names it.
extension Shard {
    /// What is wrong with a shard's text, in words that name `--shard`.
    public struct SyntaxError: Error, Sendable, Hashable {
        public var message: String

        public init(message: String) { self.message = message }
    }

    /// Parses `K/N` (whole numbers, 1 ≤ K ≤ N ≤ ``maxCount``); anything else is an error that says why.
    public static func parse(_ text: String) throws(SyntaxError) -> Shard {
        let help = "--shard takes K/N, this shard's number and the number of shards, e.g. 2/4"
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = digits(parts[0]), let n = digits(parts[1]) else {
            throw SyntaxError(message: "\(help); got '\(printable(text))'")
        }
        guard (1...maxCount).contains(n) else {
            throw SyntaxError(message: "--shard: N must be 1 to \(maxCount), got '\(printable(text))'")
        }
        guard let shard = Shard(index: k, count: n) else {
            throw SyntaxError(message: "--shard: K must be 1 to N (\(n)), got '\(printable(text))'")
        }
        return shard
    }

    /// ASCII digits only (no sign, no spaces), at most 4 of them, so nothing can overflow.
    private static func digits(_ text: Substring) -> Int? {
        guard (1...4).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// The value as typed, cut to 40 characters with control characters shown as `?`.
    public static func printable(_ text: String) -> String {
        let cut = text.unicodeScalars.prefix(40).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }
        return cut.joined() + (text.unicodeScalars.count > 40 ? "…" : "")
    }
}
