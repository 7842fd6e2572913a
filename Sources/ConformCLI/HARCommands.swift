import ConformCapture
import ConformTraffic
import Foundation

/// `conform import FILE.har --out DIR` (a packet capture goes to ``CaptureCommands``) and `conform export RECORDING [--out FILE.har]`.
enum HARCommands {
    static func importHAR(_ args: [String], io: CommandIO) throws(UsageError) -> Int32 {
        let parsed = try Arguments(args, command: .importHAR)
        if parsed.has("--help") {
            io.out.write(CommandSpec.importHAR.helpText)
            return 0
        }
        guard parsed.positionals.count == 1, let file = parsed.positionals.first else {
            throw UsageError(message: "import takes one HAR file or packet capture", subcommand: "import")
        }
        if CaptureFormat.isCapture(path: io.resolve(file)) {
            return try CaptureCommands.importFile(file, parsed: parsed, io: io)
        }
        for option in ["--port", "--filter", "--upstream"] where !parsed.values(option).isEmpty {
            throw UsageError(message: "\(option) is for packet captures; \(file) is not one", subcommand: "import")
        }
        let out = parsed.required("--out")
        guard let redaction = TrafficSupport.redaction(parsed, io: io) else { return ConformCommand.ExitCode.cannotRun }
        do {
            // A HAR is checked whole, and a recording's first record read, before the recording is opened; then
            // records are written one at a time.
            var records = try TrafficSupport.trace(file, io: io).records(onWarning: TrafficSupport.warnings(io))
                .makeAsyncIterator()
            var next = try records.nextRecord()
            let writer = try RecordingWriter(directory: io.resolve(out), redaction: redaction)
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

    static func exportHAR(_ args: [String], io: CommandIO) throws(UsageError) -> Int32 {
        let parsed = try Arguments(args, command: .exportHAR)
        if parsed.has("--help") {
            io.out.write(CommandSpec.exportHAR.helpText)
            return 0
        }
        guard parsed.positionals.count == 1, let recording = parsed.positionals.first else {
            throw UsageError(message: "export takes one recording", subcommand: "export")
        }
        do {
            // A HAR is one JSON text: the exchanges it is written from are held.
            var records = try TrafficSupport.trace(recording, io: io).records(onWarning: TrafficSupport.warnings(io))
                .makeAsyncIterator()
            var exchanges: [RecordedExchange] = []
            var events: [AppEvent] = []
            while let record = try records.nextRecord() {
                switch record {
                case .exchange(let e): exchanges.append(e)
                case .event(let e): events.append(e)
                }
            }
            let data = HAR.export(exchanges, events: events, version: ConformCommand.version)
            if let out = parsed.value("--out") {
                try data.write(to: URL(fileURLWithPath: io.resolve(out)), options: .atomic)
            } else {
                io.out.write(String(decoding: data, as: UTF8.self))
            }
            return 0
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
    }

    static func scan(_ args: [String], io: CommandIO) throws(UsageError) -> Int32 {
        let parsed = try Arguments(args, command: .scan)
        if parsed.has("--help") {
            io.out.write(CommandSpec.scan.helpText)
            return 0
        }
        guard !parsed.positionals.isEmpty else {
            throw UsageError(message: "scan takes files or directories", subcommand: "scan")
        }
        do {
            let findings = try SecretScanner(profile: ConformCommand.profile).scan(
                paths: parsed.positionals.map { io.resolve($0) })
            // Report paths as the user named them (relative to the current directory), not resolved.
            let base = io.currentDirectory.hasSuffix("/") ? io.currentDirectory : io.currentDirectory + "/"
            for var f in findings {
                if f.file.hasPrefix(base) { f.file.removeFirst(base.count) }
                io.out.write(f.diagnostic.rendered(sourceLine: nil) + "\n")
            }
            if findings.isEmpty { io.out.write("No unredacted secrets found\n") }
            return findings.isEmpty ? 0 : ConformCommand.ExitCode.mismatch
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
    }
}
