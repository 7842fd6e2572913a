import ConformCore
import ConformDiagnostics
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
        (ContinuousClock.now - start).inSeconds
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
                request.cannotWrite(error, io: io)
                return false
            }
        }
        return true
    }

    /// Renders `result` with every requested reporter straight into its file; false when one cannot be written.
    static func write(_ requests: [ReportRequest], for result: RunResult, io: CommandIO) -> Bool {
        guard let files = ReportFile.open(requests, io: io) else { return false }
        for file in files { file.request.reporter(sink: file.sink).handle(.runFinished(result)) }
        return ReportFile.finish(files, io: io)
    }

    func cannotWrite(_ error: any Error, io: CommandIO) {
        io.report(
            Diagnostic(
                .reportUnwritable, message: "cannot write the \(kind) report to \(path): \(error.localizedDescription)",
                help: "check that the directory exists and is writable"))
    }
}

/// A report written as its reporter goes, into a file beside its path that takes the path's place once complete:
/// a report never sits whole in memory, and a half-written one never replaces an earlier report.
final class ReportFile: Sendable {
    let request: ReportRequest
    let destination: URL
    let partial: URL
    let sink: FileHandleSink

    init(_ request: ReportRequest, io: CommandIO) throws {
        self.request = request
        destination = URL(fileURLWithPath: io.resolve(request.path))
        partial = destination.deletingLastPathComponent().appendingPathComponent(
            ".\(destination.lastPathComponent).\(UUID().uuidString).partial")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: partial.path])
        }
        sink = FileHandleSink(try FileHandle(forWritingTo: partial))
    }

    deinit { try? FileManager.default.removeItem(at: partial) }

    /// A file for each request; on the first that cannot be created, says so and returns `nil`.
    static func open(_ requests: [ReportRequest], io: CommandIO) -> [ReportFile]? {
        var files: [ReportFile] = []
        for request in requests {
            do {
                files.append(try ReportFile(request, io: io))
            } catch {
                request.cannotWrite(error, io: io)
                return nil
            }
        }
        return files
    }

    /// Puts every complete report in its place; on the first that cannot be moved, says so and returns false.
    static func finish(_ files: [ReportFile], io: CommandIO) -> Bool {
        for file in files {
            // rename(2) replaces an earlier report in one step. (Foundation's `replaceItemAt` on Linux removed the
            // earlier report and then failed, so a second run with the same `--report` paths lost its reports.)
            guard rename(file.partial.path, file.destination.path) == 0 else {
                file.request.cannotWrite(SystemCallError(call: "rename", code: errno), io: io)
                return false
            }
        }
        return true
    }
}

/// A failed system call, worded as the C library words its error number.
struct SystemCallError: LocalizedError {
    var call: String
    var code: Int32

    var errorDescription: String? { "\(call): \(String(cString: strerror(code)))" }
}
