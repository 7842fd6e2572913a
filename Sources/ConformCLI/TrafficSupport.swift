import ConformCore
import ConformDiagnostics
import ConformReplay
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

    /// The redaction policy of the profile's exchanges, from `--no-redact` / `--redact FILE`.
    static func redaction(_ parsed: Arguments, io: CommandIO) -> RedactionPolicy? {
        if parsed.has("--no-redact") { return .disabled }
        guard let file = parsed.value("--redact") else { return RedactionPolicy(profile: ConformCommand.profile) }
        return loadYAML(file, io: io) { (bytes, name) throws(YAMLParseFailure) in
            try RedactionPolicy.load(bytes, file: name, profile: ConformCommand.profile)
        }
    }

    /// Noise rules from `--noise FILE`, or the defaults.
    static func noise(_ parsed: Arguments, io: CommandIO) -> NoiseRules? {
        guard let file = parsed.value("--noise") else { return .default }
        return loadYAML(file, io: io) { (bytes, name) throws(YAMLParseFailure) in try NoiseRules.load(bytes, file: name)
        }
    }

    /// `given` with what the protocol documents as differing on every run of a correct implementation, unless
    /// `--no-default-noise` (replay and diff).
    static func withDocumentedNoise(_ given: NoiseRules, _ parsed: Arguments) -> NoiseRules {
        parsed.has("--no-default-noise") ? given : given.merging(.documented(by: ConformCommand.profile.replay))
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

    /// Opens a trace of any format (told by its content, never here) named as the user wrote it.
    static func trace(_ path: String, io: CommandIO) throws -> Trace {
        try Trace.open(io.resolve(path), name: path)
    }

    /// Writes each warning of a trace's reading to standard error, as it is met.
    static func warnings(_ io: CommandIO) -> @Sendable (TraceWarning) -> Void {
        { warning in io.err.write(warning.text + "\n") }
    }
}
