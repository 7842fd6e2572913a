import ConformCapture
import ConformReport
import ConformTraffic
import Foundation

/// `conform import FILE.har --out DIR` (a packet capture goes to ``CaptureCommands``) and `conform export RECORDING [--out FILE.har]`.
enum HARCommands {
    static func importHAR(_ parsed: Arguments, io: CommandIO) throws(UsageError) -> Int32 {
        guard parsed.positionals.count == 1, let file = parsed.positionals.first else {
            throw UsageError(message: "import takes one HAR file or packet capture", subcommand: "import")
        }
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
            // A HAR is checked whole, and a recording's first record read, before the recording is opened; then
            // records are written one at a time.
            let trace = try TrafficSupport.trace(file, io: io)
            var records = trace.records(onWarning: TrafficSupport.warnings(io)).makeAsyncIterator()
            var next = try records.nextRecord()
            let writer = try RecordingWriter(directory: io.resolve(out), redaction: redaction)
            // A trace Conform redacted keeps its pseudonyms: the new recording names their roles too.
            try writer.adopt(credentials: trace.redactedCredentials())
            var count = 0
            var events = 0
            while let record = next {
                switch record {
                case .exchange(let e):
                    try writer.write(e)
                    count += 1
                case .event(let e):
                    try writer.append(event: e)
                    events += 1
                }
                next = try records.nextRecord()
            }
            writer.close()
            io.out.write(
                "Imported \(count) exchange\(count == 1 ? "" : "s")"
                    + (events == 0 ? "" : " and \(events) app event\(events == 1 ? "" : "s")")
                    + " from \(file) into \(out)\n")
            return 0
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
    }

    static func exportHAR(_ parsed: Arguments, io: CommandIO) throws(UsageError) -> Int32 {
        guard parsed.positionals.count == 1, let recording = parsed.positionals.first else {
            throw UsageError(message: "export takes one recording", subcommand: "export")
        }
        // Entry by entry as the recording is read: exporting holds one exchange at a time (a 697 MB recording took
        // 2.7 GB when the document was built whole). A file is written beside its name and renamed when complete.
        var file: (path: String, temporary: String, handle: FileHandle)?
        do {
            let trace = try TrafficSupport.trace(recording, io: io)
            let credentials = try trace.redactedCredentials()
            if let out = parsed.value("--out") {
                let path = io.resolve(out)
                let temporary = path + ".\(getpid()).tmp"
                guard FileManager.default.createFile(atPath: temporary, contents: nil),
                    let handle = FileHandle(forWritingAtPath: temporary)
                else {
                    throw RecordingError(
                        file: path, message: "cannot create the HAR file", help: "check the path and permissions")
                }
                file = (path, temporary, handle)
            }
            var pending = ""
            var writeError: (any Error)?
            let flush = {
                guard !pending.isEmpty else { return }
                if let handle = file?.handle {
                    do {
                        try handle.write(contentsOf: Data(pending.utf8))
                    } catch {
                        writeError =
                            writeError
                            ?? RecordingError(
                                file: file?.path ?? "", message: "cannot write the HAR file (\(error))",
                                help: "check free disk space and permissions")
                    }
                } else {
                    io.out.write(pending)
                }
                pending = ""
            }
            var exporter = HAR.Exporter(credentials: credentials, version: ConformCommand.version) { text in
                pending += text
                if pending.utf8.count >= 1 << 20 { flush() }
            }
            var records = trace.records(onWarning: TrafficSupport.warnings(io)).makeAsyncIterator()
            var (exchanges, events) = (0, 0)
            while let record = try records.nextRecord() {
                switch record {
                case .exchange(let e):
                    exporter.add(e)
                    exchanges += 1
                case .event(let e):
                    exporter.add(e)
                    events += 1
                }
                if let writeError { throw writeError }
            }
            exporter.finish()
            flush()
            if let writeError { throw writeError }
            if let file {
                try file.handle.close()
                guard rename(file.temporary, file.path) == 0 else {
                    throw RecordingError(
                        file: file.path, message: "cannot write (\(String(cString: strerror(errno))))",
                        help: "check the path and permissions")
                }
                // Standard output holds the HAR itself when there is no --out: only a file is announced.
                io.out.write(
                    "Wrote \(file.path): HAR 1.2, \(Noun("entry", many: "entries").counted(exchanges)), "
                        + "\(Noun("app event").counted(events))\n")
            }
            return 0
        } catch {
            if let file {
                try? file.handle.close()
                unlink(file.temporary)
            }
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
