import ConformReport
import ConformRunner
import Foundation

/// A `--report KIND:FILE` request.
struct ReportRequest {
    var kind: String
    var path: String

    static let kinds = ["junit", "json", "html"]

    init(parsing spec: String, subcommand: String = "run") throws(UsageError) {
        guard let colon = spec.firstIndex(of: ":"), colon != spec.startIndex, spec.index(after: colon) != spec.endIndex
        else {
            throw UsageError(
                message: "--report takes KIND:FILE (\(Self.kinds.joined(separator: ", "))), got '\(spec)'",
                subcommand: subcommand)
        }
        kind = String(spec[..<colon])
        path = String(spec[spec.index(after: colon)...])
        guard Self.kinds.contains(kind) else {
            throw UsageError(
                message: "unknown report kind '\(kind)'; use one of: \(Self.kinds.joined(separator: ", "))",
                subcommand: subcommand)
        }
    }

    /// Seconds since `start`, for a result's duration.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Every `--report` of `parsed`, checked.
    static func all(_ parsed: Arguments, subcommand: String) throws(UsageError) -> [ReportRequest] {
        try parsed.values("--report").map { (spec: String) throws(UsageError) -> ReportRequest in
            try ReportRequest(parsing: spec, subcommand: subcommand)
        }
    }

    func reporter(sink: any TextSink, placement: ShardPlacement? = nil) -> any RunReporter {
        switch kind {
        case "junit": JUnitReporter(sink: sink)
        case "html": HTMLReporter(sink: sink)
        default: JSONReporter(sink: sink, placement: placement)
        }
    }

    /// Writes each rendered report to its file; on the first that cannot be written, says so and returns false.
    static func write(_ rendered: [(ReportRequest, MemorySink)], io: CommandIO) -> Bool {
        for (request, sink) in rendered {
            do {
                try Data(sink.text.utf8).write(to: URL(fileURLWithPath: io.resolve(request.path)), options: .atomic)
            } catch {
                io.err.write(
                    "error: cannot write the \(request.kind) report to \(request.path): \(error.localizedDescription)\n"
                        + "help: check that the directory exists and is writable\n")
                return false
            }
        }
        return true
    }

    /// Renders `result` with every requested reporter and writes the files; false when one cannot be written.
    static func write(_ requests: [ReportRequest], for result: RunResult, io: CommandIO) -> Bool {
        let rendered = requests.map { ($0, MemorySink()) }
        for (request, sink) in rendered { request.reporter(sink: sink).handle(.runFinished(result)) }
        return write(rendered, io: io)
    }
}
