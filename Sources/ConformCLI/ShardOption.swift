import ConformReport
import ConformRunner

/// `--shard K/N`: which of N deterministic slices this process runs.
enum ShardOption {
    /// Parses `K/N` (whole numbers, 1 ≤ K ≤ N ≤ 1000); anything else is a usage error that says why.
    static func parse(_ text: String, subcommand: String) throws(UsageError) -> Shard {
        let help = "--shard takes K/N, this shard's number and the number of shards, e.g. 2/4"
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = digits(parts[0]), let n = digits(parts[1]) else {
            throw UsageError(message: "\(help); got '\(printable(text))'", subcommand: subcommand)
        }
        guard (1...Shard.maxCount).contains(n) else {
            throw UsageError(
                message: "--shard: N must be 1 to \(Shard.maxCount), got '\(printable(text))'", subcommand: subcommand)
        }
        guard let shard = Shard(index: k, count: n) else {
            throw UsageError(
                message: "--shard: K must be 1 to N (\(n)), got '\(printable(text))'", subcommand: subcommand)
        }
        return shard
    }

    /// ASCII digits only (no sign, no spaces), at most 4 of them, so nothing can overflow.
    private static func digits(_ text: Substring) -> Int? {
        guard (1...4).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// The value as typed, cut to 40 characters with control characters shown as `?`.
    static func printable(_ text: String) -> String {
        let cut = text.unicodeScalars.prefix(40).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }
        return cut.joined() + (text.unicodeScalars.count > 40 ? "…" : "")
    }
}
