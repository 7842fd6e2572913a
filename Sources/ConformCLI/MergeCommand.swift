import ConformCore
import ConformReport
import ConformRunner
import Foundation

/// `conform merge REPORTS…`: the JSON reports of the shards of one run, reported as that one run.
enum MergeCommand {
    /// Reports larger than this (16 MiB) keep their exchanges in a spool file rather than in memory.
    static let spoolFrom = 16 << 20

    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        if let out = parsed.value("--bundle") { return try await MergeBundle.main(parsed, out: out, io: io) }
        if parsed.value("--sign") != nil {
            throw UsageError(message: "--sign signs a merged bundle; give --bundle OUT too", subcommand: "merge")
        }
        guard !parsed.positionals.isEmpty else {
            throw UsageError(
                message:
                    "merge takes the JSON reports of every shard (written by 'conform run --shard K/N --report json:FILE')",
                subcommand: "merge")
        }
        let requests = try ReportRequest.all(parsed, subcommand: "merge", io: io)
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
                console: ConsoleReporter(
                    sink: io.out, color: io.color && !parsed.has("--no-color"), verbose: parsed.has("--verbose")),
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
