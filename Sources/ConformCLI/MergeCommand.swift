import ConformCore
import ConformReport
import ConformRunner
import Foundation

/// `conform merge REPORTS…`: the JSON reports of the shards of one run, reported as that one run.
enum MergeCommand {
    /// The largest JSON report read (a bound on memory; a 100,000-step report is well under it).
    static let maxReportBytes = 1 << 30
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
                let bytes = try read(path, io: io)
                reports.append(
                    try RunReport.read(bytes: bytes, source: path, spool: bytes.count > spoolFrom ? spool : nil))
            }
            let merged = try RunReport.merge(reports)
            reports = []
            let session = Session(
                console: ConsoleReporter(
                    sink: io.out, color: io.color && !parsed.has("--no-color"), verbose: parsed.has("--verbose")),
                reports: requests)
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

    /// The bytes of the report at `path`, read into one buffer (the parser works on it without a second copy).
    static func read(_ path: String, io: CommandIO) throws(RunReportError) -> [UInt8] {
        let fd = open(io.resolve(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw RunReportError(
                "cannot read \(path): \(String(cString: strerror(errno)))",
                help: "pass the JSON report files of every shard")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw RunReportError(
                "cannot read \(path): not a regular file", help: "pass the JSON report files of every shard")
        }
        let size = Int(status.st_size)
        guard size <= maxReportBytes else {
            throw RunReportError(
                "\(path) is \(size) bytes, more than the \(maxReportBytes) a report may have",
                help: "pass the JSON reports written by 'conform run --report json:FILE'")
        }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let n = readBytes(fd, buffer.baseAddress! + count, size - count)
                if n < 0, errno == EINTR { continue }
                if n < 0 { failure = errno }
                if n <= 0 { break }
                count += n
            }
        }
        guard failure == 0 else {
            throw RunReportError(
                "cannot read \(path): \(String(cString: strerror(failure)))",
                help: "check that the file exists and is readable")
        }
        return bytes
    }
}

/// `read(2)` under a name that does not clash with ``MergeCommand/read(_:io:)``.
private func readBytes(_ fd: Int32, _ pointer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(fd, pointer, count)
}
