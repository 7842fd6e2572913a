import ConformCore
import ConformCurl
import ConformDiagnostics
import ConformReport
import ConformServer
import ConformTraffic
import Foundation
import Synchronization

/// `conform record`: a recording reverse proxy in front of one or two upstreams.
enum RecordCommand {
    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        guard let out = parsed.value("--out") else {
            throw UsageError(message: "missing --out DIRECTORY", subcommand: "record")
        }
        let upstreamValues = parsed.values("--upstream")
        guard !upstreamValues.isEmpty else {
            throw UsageError(message: "missing --upstream URL (or mobile=URL and backend=URL)", subcommand: "record")
        }
        var upstreams: [String: String] = [:]
        for value in upstreamValues {
            if value.hasPrefix("http://") || value.hasPrefix("https://") {
                upstreams["*"] = value
            } else if let eq = value.firstIndex(of: "="), value[value.index(after: eq)...].hasPrefix("http") {
                upstreams[String(value[..<eq])] = String(value[value.index(after: eq)...])
            } else {
                throw UsageError(
                    message: "--upstream takes URL or NAME=URL (mobile, backend), got '\(value)'", subcommand: "record")
            }
        }
        for (name, url) in upstreams {
            if let problem = HTTPSyntax.baseURLProblem(url) {
                throw UsageError(
                    message: "--upstream \(name == "*" ? "" : name + "=")\(HTTPSyntax.quoted(url)) \(problem); "
                        + "give http(s)://HOST[:PORT][/PATH]",
                    subcommand: "record")
            }
        }
        let listen = try TrafficSupport.listenAddress(parsed.value("--listen") ?? "127.0.0.1:0", subcommand: "record")
        guard let redaction = TrafficSupport.redaction(parsed, io: io) else { return ConformCommand.ExitCode.cannotRun }
        let timeout = try parsed.duration("--timeout") ?? .seconds(30)
        let transport = CurlTransport(
            timeout: timeout, insecure: parsed.has("--insecure"), maxBodyBytes: try parsed.maxBody())
        return await ProxySession.run(
            upstreams: upstreams, transport: transport, out: out, redaction: redaction, append: parsed.has("--append"),
            listen: listen, check: parsed.has("--check"),
            reports: try ProxySession.reports(parsed, subcommand: "record", io: io), banner: "Recording",
            limits: ProxyLimits(requestDeadline: timeout + .seconds(1)), io: io)
    }
}

/// A proxy that records (and optionally checks) until interrupted; shared by `record` and `serve --check`.
enum ProxySession {
    static func run(
        upstreams: [String: String], transport: any Transport, out: String, redaction: RedactionPolicy, append: Bool,
        listen: (host: String, port: UInt16), check: Bool, reports: [ReportTarget] = [], banner: String,
        limits proxyLimits: ProxyLimits = .default, io: CommandIO
    ) async -> Int32 {
        let started = ContinuousClock.now
        let writer: RecordingWriter
        do {
            writer = try RecordingWriter(directory: io.resolve(out), redaction: redaction, append: append)
            if let dropped = writer.droppedTail { io.err.write(dropped.warning + "\n") }
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
        let checker = Mutex(FlowChecker())
        let violations = Mutex<[FlowViolation]>([])
        let count = Mutex((exchanges: 0, events: 0))
        @Sendable func checked(_ record: TraceRecord) {
            guard check else { return }
            let found = FlowChecker.attaching(record, to: checker.withLock { $0.check(record) })
            if !found.isEmpty {
                violations.withLock { $0 += found }
                for v in found { io.err.write("violation: \(v)\n") }
            }
        }
        let proxy = RecordingProxy(
            upstreams: upstreams, transport: transport, writer: writer,
            onExchange: { exchange in
                count.withLock { $0.exchanges += 1 }
                checked(.exchange(exchange))
            },
            onError: { io.report(Diagnostic(.cliProxy, message: "\($0)")) },
            onEvent: { event in
                count.withLock { $0.events += 1 }
                io.out.write("App event \(event.seq): \(event.kind)\n")
                checked(.event(event))
            }, limits: proxyLimits)
        // A request waiting for its upstream holds only its own connection's thread; the proxy's limits bound how
        // many wait and for how long.
        var limits = HTTPServerLimits.default
        limits.threadPerConnection = true
        let server: HTTPServer
        do {
            server = try HTTPServer(
                handler: AsyncHandlerAdapter { await proxy.forward($0) }, host: listen.host, port: listen.port,
                limits: limits)
            try server.start()
        } catch {
            io.report(
                Diagnostic(
                    .cliCannotListen, message: "cannot listen on \(listen.host):\(listen.port): \(error)",
                    help: "pick a free port, or 0 for any"))
            return ConformCommand.ExitCode.cannotRun
        }
        let targets = upstreams.sorted { $0.key < $1.key }.map { $0.key == "*" ? $0.value : "\($0.key) → \($0.value)" }
        io.out.write("\(banner) on \(server.baseURL) (forwarding to \(targets.joined(separator: ", "))) into \(out)\n")
        io.out.write("Point the app's base URL at \(server.baseURL). Press Ctrl-C to stop.\n")
        io.out.write("App events: POST \(server.baseURL)\(RecordingProxy.eventsPath) (never forwarded).\n")
        await ServeCommand.waitForTermination()
        server.stop()
        writer.sync()
        writer.close()
        let total = count.withLock { $0 }
        let found = violations.withLock { $0 }
        let events = total.events == 0 ? "" : " and \(total.events) app event\(total.events == 1 ? "" : "s")"
        io.out.write("Recorded \(total.exchanges) exchange\(total.exchanges == 1 ? "" : "s")\(events) into \(out)\n")
        let lost = writer.lostCount
        if lost > 0 {
            // The clients were answered, but the recording misses what could not be written: not a whole recording.
            io.report(
                Diagnostic(
                    .cliProxy,
                    message: "\(lost) exchange\(lost == 1 ? "" : "s") or event\(lost == 1 ? "" : "s") could not be "
                        + "written (reported above); the recording is incomplete",
                    help: "free disk space and record again; the lines that were written are whole and readable"))
            return ConformCommand.ExitCode.cannotRun
        }
        guard check else { return 0 }
        // The live check's result, through the one console and the reports, as `conform check` of the recording.
        let notes = checker.withLock { $0.notes + $0.openObligations() }
        let trace = FlowCheckReport.Trace(path: out, violations: found, notes: notes, exchanges: total.exchanges)
        let result = FlowCheckReport.result(
            [trace], rules: FlowRule.all, duration: ReportRequest.seconds(since: started))
        let session = Session(console: HARCommands.console(io: io), reports: reports)
        let outcome = await session.run { events in
            for step in result.steps { events(.stepFinished(step)) }
            return result
        }
        return io.status(of: outcome)
    }

    /// The `--report` files of a proxy session, which only `--check` has results for.
    static func reports(_ parsed: Arguments, subcommand: String, io: CommandIO) throws(UsageError) -> [ReportTarget] {
        let reports = try ReportRequest.all(parsed, subcommand: subcommand, io: io)
        guard reports.isEmpty || parsed.has("--check") else {
            throw UsageError(
                message: "--report needs --check: a recording without a check has no result to report",
                subcommand: subcommand)
        }
        return reports
    }
}
