import ConformCore
import ConformReport
import ConformRunner
import Foundation

/// `conform merge REPORTS…`: the JSON reports of the shards of one run, reported as that one run.
enum MergeCommand {
    /// The largest JSON report read (a bound on memory; a 100,000-step report is well under it).
    static let maxReportBytes = 1 << 30

    static func main(_ args: [String], io: CommandIO) throws(UsageError) -> Int32 {
        let parsed = try Arguments(args, command: .merge)
        if parsed.has("--help") {
            io.out.write(CommandSpec.merge.helpText)
            return 0
        }
        guard !parsed.positionals.isEmpty else {
            throw UsageError(
                message:
                    "merge takes the JSON reports of every shard (written by 'conform run --shard K/N --report json:FILE')",
                subcommand: "merge")
        }
        let requests = try parsed.values("--report").map { (spec: String) throws(UsageError) -> ReportRequest in
            try ReportRequest(parsing: spec, subcommand: "merge")
        }
        var reports: [RunReport] = []
        do {
            for path in parsed.positionals {
                reports.append(try RunReport.read(try read(path, io: io), source: path))
            }
            let merged = try RunReport.merge(reports)
            var reporters: [any RunReporter] = [
                ConsoleReporter(
                    sink: io.out, color: io.color && !parsed.has("--no-color"), verbose: parsed.has("--verbose"))
            ]
            let sinks = requests.map { ($0, MemorySink()) }
            for (request, sink) in sinks { reporters.append(request.reporter(sink: sink)) }
            let fanout = ReporterFanout(reporters)
            RunListing.replay(merged.result, to: fanout)
            guard ReportRequest.write(sinks, io: io) else { return ConformCommand.ExitCode.cannotRun }
            return merged.result.exitCode
        } catch {
            io.err.write("\(error)\n")
            return ConformCommand.ExitCode.cannotRun
        }
    }

    static func read(_ path: String, io: CommandIO) throws(RunReportError) -> Data {
        let url = URL(fileURLWithPath: io.resolve(path))
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
        guard let size else {
            throw RunReportError("cannot read \(path): no such file", help: "pass the JSON report files of every shard")
        }
        guard size <= maxReportBytes else {
            throw RunReportError(
                "\(path) is \(size) bytes, more than the \(maxReportBytes) a report may have",
                help: "pass the JSON reports written by 'conform run --report json:FILE'")
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw RunReportError(
                "cannot read \(path): \(error.localizedDescription)", help: "check that the file exists and is readable"
            )
        }
    }
}
