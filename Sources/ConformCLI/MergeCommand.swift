import ConformCore
import ConformReport
import ConformRunner
import Foundation

/// `conform merge REPORTS…`: the JSON reports of the shards of one run, reported as that one run.
enum MergeCommand {
    /// Reports larger than this (16 MiB) keep their exchanges in a spool file rather than in memory.
    static let spoolFrom = 16 << 20

    /// The reports the merge writes (`--report`), once `parsed` names the shards to merge; `usage` says what the
    /// shards are when none is named.
    static func reportTargets(_ parsed: Arguments, io: CommandIO, orUsage usage: String) throws(UsageError)
        -> [ReportTarget]
    {
        guard !parsed.positionals.isEmpty else { throw UsageError(message: usage, subcommand: "merge") }
        return try ReportRequest.all(parsed, subcommand: "merge", io: io)
    }

    /// The console the merged run is told on (`--no-color`, `--verbose`).
    static func console(_ parsed: Arguments, io: CommandIO) -> ConsoleReporter {
        ConsoleReporter(sink: io.out, color: io.color && !parsed.has("--no-color"), verbose: parsed.has("--verbose"))
    }

    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        if let out = parsed.value("--bundle") { return try await MergeBundle.main(parsed, out: out, io: io) }
        if parsed.value("--sign") != nil {
            throw UsageError(message: "--sign signs a merged bundle; give --bundle OUT too", subcommand: "merge")
        }
        let requests = try reportTargets(
            parsed, io: io,
            orUsage:
                "merge takes the JSON reports of every shard (written by 'conform run --shard K/N --report json:FILE')")
        var reports: [RunReport] = []
        do {
            // Exchanges wait on disk, and reports are written as they go: memory holds one shard's text at a time
            // and the compact results.
            let spool = try? ExchangeSpool()
            for path in parsed.positionals {
                let bytes = try RunReport.bytes(ofFile: io.resolve(path), shown: path)
                reports.append(
                    try RunReport.read(bytes: bytes, source: path, spool: bytes.count > spoolFrom ? spool : nil))
            }
            let merged = try RunReport.merge(reports)
            reports = []
            let session = Session(
                console: console(parsed, io: io),
                reports: requests, credentialHeaders: ConformCommand.profile.credentialHeaderNames)
            let outcome = await session.run { events in
                merged.result.replay(to: events)
                return merged.result
            }
            return io.status(of: outcome)
        } catch {
            io.err.write("\(error)\n")
            return ConformCommand.ExitCode.cannotRun
        }
    }
}
