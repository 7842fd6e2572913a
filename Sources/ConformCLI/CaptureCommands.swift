import ConformCapture
import ConformDiagnostics
import ConformFlowCheck
import ConformReport
import ConformTraffic
import ConformTransports
import Foundation

/// `conform import CAPTURE.pcap --out DIR` and `conform capture --interface IF --port N --out DIR`: packets read
/// into a recording by `ConformCapture`; this file only wires options, output and exit codes.
enum CaptureCommands {
    /// The options shared by a file and a live capture.
    static func options(_ parsed: Arguments, subcommand: String) throws(UsageError) -> CaptureOptions {
        var options = CaptureOptions(profile: ConformCommand.profile)
        for text in parsed.values("--port") {
            guard let port = UInt16(text), port > 0 else {
                throw UsageError(message: "--port takes a port from 1 to 65535, got '\(text)'", subcommand: subcommand)
            }
            options.ports.insert(port)
        }
        for value in parsed.values("--upstream") {
            guard let eq = value.firstIndex(of: "="), let colon = value.lastIndex(of: ":"), colon > eq,
                let port = UInt16(value[value.index(after: colon)...]),
                let address = IPAddress(String(value[value.index(after: eq)..<colon]))
            else {
                throw UsageError(
                    message: "--upstream takes NAME=ADDRESS:PORT with an IP address (mobile=10.0.0.5:8080, "
                        + "backend=[::1]:9090), got '\(value)'",
                    subcommand: subcommand)
            }
            options.upstreams[Endpoint(address: address, port: port)] = String(value[..<eq])
        }
        return options
    }

    /// `conform import` of a file that starts like a pcap or pcapng.
    static func importFile(_ file: String, parsed: Arguments, io: CommandIO) throws(UsageError) -> Int32 {
        var options = try options(parsed, subcommand: "import")
        options.resync = parsed.has("--resync")
        let out = parsed.required("--out")
        guard let redaction = TrafficSupport.redaction(parsed, io: io) else { return ConformCommand.ExitCode.cannotRun }
        do {
            let source = try PacketSource(file: io.resolve(file), filter: parsed.value("--filter"))
            let writer = try RecordingWriter(
                directory: io.resolve(out), profile: ConformCommand.profile, redaction: redaction)
            let summary = try CaptureImport.run(source: source, options: options, writer: writer)
            writer.close()
            io.out.write(
                "Imported \(summary.exchanges) exchange\(summary.exchanges == 1 ? "" : "s") from \(file) into \(out)\n")
            let status = finish(summary, io: io)
            guard status == 0, summary.exchanges == 0 else { return status }
            io.report(failure: summary.nothingRead(file: file, options: options))
            return ConformCommand.ExitCode.cannotRun
        } catch let error as CaptureImport.Failure {
            switch error {
            case .capture(let e): io.report(failure: e)
            case .recording(let e): io.report(failure: e)
            }
            return ConformCommand.ExitCode.cannotRun
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
    }

    /// Prints the summary; a capture cut off inside a packet is reported and exits 2 (what came before is written).
    static func finish(_ summary: CaptureSummary, io: CommandIO) -> Int32 {
        for line in summary.lines { io.out.write("  \(line)\n") }
        if let error = summary.readError {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
        return 0
    }

    /// `conform capture`.
    static func live(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        let interface = parsed.required("--interface")
        let out = parsed.required("--out")
        var options = try options(parsed, subcommand: "capture")
        options.resync = parsed.has("--resync")
        let duration = try parsed.duration("--duration")
        guard let redaction = TrafficSupport.redaction(parsed, io: io) else { return ConformCommand.ExitCode.cannotRun }
        let source: PacketSource
        let writer: RecordingWriter
        do {
            source = try PacketSource(
                interface: interface, filter: options.kernelFilter(adding: parsed.value("--filter")))
            writer = try RecordingWriter(
                directory: io.resolve(out), profile: ConformCommand.profile, redaction: redaction,
                append: parsed.has("--append"))
            if let dropped = writer.droppedTail { io.err.write(dropped.warning + "\n") }
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
        let check = parsed.has("--check")
        let reports = try ProxySessions.reports(parsed, subcommand: "capture", io: io)
        let live = LiveFlowCheck(
            codes: try ProxySessions.codes(parsed, subcommand: "capture"), profile: ConformCommand.profile,
            redactor: writer.redactor, onViolation: { io.err.write("violation: \($0)\n") })
        let started = ContinuousClock.now
        let termination = Termination.shared
        termination.install()
        let deadline = duration.map { ContinuousClock.now + $0 }
        let ports = options.ports.sorted().map(String.init).joined(separator: ", ")
        io.out.write(
            "Capturing on \(interface)\(ports.isEmpty ? "" : " port \(ports)") into \(out)"
                + (duration.map { " for \($0)" } ?? "") + ". Press Ctrl-C to stop.\n")
        let summary: CaptureSummary
        do {
            summary = try CaptureImport.run(
                source: source, options: options, writer: writer,
                shouldStop: { termination.happened || deadline.map { ContinuousClock.now >= $0 } ?? false },
                onExchange: { exchange in if check { live.observe(.exchange(exchange)) } })
        } catch {
            switch error {
            case .capture(let e): io.report(failure: e)
            case .recording(let e): io.report(failure: e)
            }
            return ConformCommand.ExitCode.cannotRun
        }
        writer.sync()
        writer.close()
        io.out.write("Captured \(summary.exchanges) exchange\(summary.exchanges == 1 ? "" : "s") into \(out)\n")
        let status = finish(summary, io: io)
        guard status == 0 else { return status }
        guard check else { return 0 }
        for warning in live.warnings { io.err.write(warning) }
        // The live check's result, through the one console and the reports, as `conform check` of the recording.
        let result = live.result(
            path: out, exchanges: summary.exchanges, duration: ReportRequest.seconds(since: started))
        return io.status(
            of: await Session(
                console: HARCommands.console(io: io), reports: reports,
                credentialHeaders: ConformCommand.profile.credentialHeaderNames
            ).run(result))
    }
}
