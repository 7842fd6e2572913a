import ConformReport

/// `--shard K/N`: which of N deterministic slices this process runs.
enum ShardOption {
    /// Parses `K/N` (``Shard/parse(_:)``); anything else is a usage error that says why.
    static func parse(_ text: String, subcommand: String) throws(UsageError) -> Shard {
        do {
            return try Shard.parse(text)
        } catch {
            throw UsageError(message: error.message, subcommand: subcommand)
        }
    }
}
