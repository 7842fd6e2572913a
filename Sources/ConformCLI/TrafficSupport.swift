import ConformCore
import ConformDiagnostics
import ConformTraffic
import ConformYAML
import Foundation

/// Shared pieces of the traffic subcommands: option files, targets as replay transports, HTTP listen addresses.
enum TrafficSupport {
    /// Loads a YAML option file with a loader, rendering its diagnostics on failure.
    static func loadYAML<T>(_ path: String, io: CommandIO, _ load: ([UInt8], String) throws(YAMLParseFailure) -> T)
        -> T?
    {
        guard let data = FileManager.default.contents(atPath: io.resolve(path)) else {
            io.report(
                Diagnostic(
                    .fileUnreadable, file: path, message: "cannot read the file",
                    help: "check that it exists and is readable"))
            return nil
        }
        do {
            return try load([UInt8](data), path)
        } catch {
            let source = String(decoding: data, as: UTF8.self)
            io.report(error.diagnostics, source: source)
            return nil
        }
    }

    /// The redaction policy from `--no-redact` / `--redact FILE`.
    static func redaction(_ parsed: Arguments, io: CommandIO) -> RedactionPolicy? {
        if parsed.has("--no-redact") { return .disabled }
        guard let file = parsed.value("--redact") else { return .default }
        return loadYAML(file, io: io) { (bytes, name) throws(YAMLParseFailure) in
            try RedactionPolicy.load(bytes, file: name)
        }
    }

    /// Noise rules from `--noise FILE`, or the defaults.
    static func noise(_ parsed: Arguments, io: CommandIO) -> NoiseRules? {
        guard let file = parsed.value("--noise") else { return .default }
        return loadYAML(file, io: io) { (bytes, name) throws(YAMLParseFailure) in try NoiseRules.load(bytes, file: name)
        }
    }

    /// The live flow check's summary after `record --check`, `capture --check` or `import --check`: the count, each
    /// violation, the notes; 1 with a violation, else 0.
    static func flowCheckSummary(_ violations: [FlowViolation], notes: [String], io: CommandIO) -> Int32 {
        let count = violations.count
        io.out.write(
            count == 0 ? "Flow check: no violations\n" : "Flow check: \(count) violation\(count == 1 ? "" : "s")\n")
        for violation in violations { io.out.write("\(violation)\n") }
        for note in notes { io.out.write("note: \(note)\n") }
        return count == 0 ? 0 : ConformCommand.ExitCode.mismatch
    }

    /// Replay options for a target: HTTP targets rewrite recorded origins; every exchange ends within `timeout`.
    static func replayOptions(
        _ target: Target, substitutions: [String: String], sequential: Bool, timeout: Duration
    ) -> ReplayOptions {
        var options = ReplayOptions(substitutions: substitutions, concurrentFlows: !sequential)
        options.exchangeTimeout = timeout
        if case .http(let url) = target { options.origins = ["*": url] }
        return options
    }

    /// `HOST:PORT` into its parts; the host defaults to 127.0.0.1.
    static func listenAddress(_ text: String, subcommand: String) throws(UsageError) -> (host: String, port: UInt16) {
        guard let colon = text.lastIndex(of: ":") else {
            guard let port = UInt16(text) else {
                throw UsageError(message: "--listen takes HOST:PORT, got '\(text)'", subcommand: subcommand)
            }
            return ("127.0.0.1", port)
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let port = UInt16(text[text.index(after: colon)...]) else {
            throw UsageError(message: "--listen takes HOST:PORT, got '\(text)'", subcommand: subcommand)
        }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    /// Names each entry a HAR reader skipped, and each attached body it refused to read, as warnings (the rest
    /// is read; an entry whose body was refused is read without it).
    static func warnSkipped(_ document: HARDocument, io: CommandIO) {
        for refusal in document.refusals { io.err.write(refusal.warning + "\n") }
        for problem in document.skipped { io.err.write(problem.warning + "\n") }
        let more = document.skippedCount - document.skipped.count
        if more > 0 { io.err.write("\(document.file): warning: \(more) more entries skipped\n") }
    }

    /// A HAR file (read by content: plain, compressed or zipped), entry by entry; `nil` for a recording.
    static func harDocument(_ path: String, io: CommandIO) throws -> HARDocument? {
        guard case .har(let data, let attachments) = try TraceFile.open(io.resolve(path)) else { return nil }
        let document = try HARDocument(data, file: path, attachments: attachments)
        warnSkipped(document, io: io)
        return document
    }

    /// Reads a recording directory or `.jsonl` file, or a HAR file (by content), with its app events, in trace order.
    static func trace(_ path: String, io: CommandIO) throws -> [TraceRecord] {
        if let document = try harDocument(path, io: io) { return try document.records().all() }
        let reader = try RecordingReader(path: io.resolve(path))
        var out: [TraceRecord] = []
        reader.onSkipped = { io.err.write($0.warning + "\n") }
        while let record = try reader.nextRecord() { out.append(record) }
        if let torn = reader.truncatedTail { io.err.write(torn.warning + "\n") }
        return out
    }

    /// Reads a recording directory or `.jsonl` file, or a HAR file, into memory.
    static func exchanges(_ path: String, io: CommandIO) throws -> [RecordedExchange] {
        let full = io.resolve(path)
        if let document = try harDocument(path, io: io) {
            return try document.readable.map { index throws(HARError) in try document.exchange(index) }
        }
        let reader = try RecordingReader(path: full)
        var out: [RecordedExchange] = []
        reader.onSkipped = { io.err.write($0.warning + "\n") }
        while let e = try reader.next() { out.append(e) }
        if let torn = reader.truncatedTail { io.err.write(torn.warning + "\n") }
        return out
    }
}
