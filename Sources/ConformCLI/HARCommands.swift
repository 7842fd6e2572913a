import ConformCapture
import ConformReport
import ConformTraffic
import Foundation

/// `conform import FILE.har --out DIR` (a packet capture goes to ``CaptureCommands``) and `conform export RECORDING [--out FILE.har]`.
enum HARCommands {
    static func importHAR(_ parsed: Arguments, io: CommandIO) throws(UsageError) -> Int32 {
        let file = try parsed.onePositional("one HAR file or packet capture")
        if CaptureFormat.isCapture(path: io.resolve(file)) {
            return try CaptureCommands.importFile(file, parsed: parsed, io: io)
        }
        for option in ["--port", "--filter", "--upstream"] where !parsed.values(option).isEmpty {
            throw UsageError(message: "\(option) is for packet captures; \(file) is not one", subcommand: "import")
        }
        if parsed.has("--resync") {
            throw UsageError(message: "--resync is for packet captures; \(file) is not one", subcommand: "import")
        }
        let out = parsed.required("--out")
        guard let redaction = TrafficSupport.redaction(parsed, io: io) else { return ConformCommand.ExitCode.cannotRun }
        do {
            let copied = try TrafficSupport.trace(file, io: io).copy(
                into: { try RecordingWriter(directory: io.resolve(out), redaction: redaction) },
                onWarning: TrafficSupport.warnings(io))
            io.out.write(
                "Imported \(Noun("exchange").counted(copied.exchanges))"
                    + (copied.events == 0 ? "" : " and \(Noun("app event").counted(copied.events))")
                    + " from \(file) into \(out)\n")
            return 0
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
    }

    static func exportHAR(_ parsed: Arguments, io: CommandIO) throws(UsageError) -> Int32 {
        let recording = try parsed.onePositional("one recording")
        // Entry by entry as the recording is read: exporting holds one exchange at a time (a 697 MB recording took
        // 2.7 GB when the document was built whole).
        let out = parsed.value("--out")
        do {
            let copied = try TrafficSupport.trace(recording, io: io).exportHAR(
                to: out.map(io.resolve), version: ConformCommand.version, onWarning: TrafficSupport.warnings(io)
            ) { io.out.write($0) }
            // Standard output holds the HAR itself when there is no --out: only a file is announced.
            if let out {
                io.out.write(
                    "Wrote \(io.resolve(out)): HAR 1.2, \(Noun("entry", many: "entries").counted(copied.exchanges)), "
                        + "\(Noun("app event").counted(copied.events))\n")
            }
            return 0
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
    }

    static func scan(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        guard !parsed.positionals.isEmpty else {
            throw UsageError(message: "scan takes files or directories", subcommand: "scan")
        }
        let session = Session(
            console: Self.console(io: io), reports: try ReportRequest.all(parsed, subcommand: "scan", io: io),
            credentialHeaders: ConformCommand.profile.credentialHeaderNames)
        do {
            let started = ContinuousClock.now
            // Report paths as the user named them (relative to the current directory), not resolved.
            let base = io.currentDirectory.hasSuffix("/") ? io.currentDirectory : io.currentDirectory + "/"
            func shown(_ path: String) -> String { path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path }
            let scanner = SecretScanner(profile: ConformCommand.profile)
            let files = try scanner.scanFiles(paths: parsed.positionals.map { io.resolve($0) }).map {
                file, findings in
                (
                    file: shown(file),
                    findings: findings.map { f in
                        var f = f
                        f.file = shown(f.file)
                        return f
                    }
                )
            }
            let result = ScanResults.result(
                files, target: parsed.positionals.joined(separator: ", "),
                duration: ReportRequest.seconds(since: started))
            return io.status(of: await session.run(result))
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
    }

    /// The console of a command whose steps are shown one by one as they finish (scan, check, replay, diff).
    static func console(io: CommandIO, verbose: Bool = false) -> ConsoleReporter {
        var console = ConsoleReporter(sink: io.out, color: io.color, verbose: verbose)
        console.streamsSteps = true
        return console
    }
}
