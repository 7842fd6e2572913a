import ConformCore
import ConformCurl
import ConformDiagnostics
import ConformFlowCheck
import ConformProxy
import ConformReport
import ConformServer
import ConformTraffic
import ConformTransports
import Foundation
import Synchronization

/// `conform record`: a recording reverse proxy in front of one or two upstreams.
enum RecordCommand {
    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        let out = parsed.required("--out")
        let upstreamValues = parsed.values("--upstream")
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
        let forward = try ForwardOptions.policy(parsed)
        if forward == nil && upstreams.isEmpty {
            throw UsageError(
                message: "--upstream is required (or --forward with --allow-host, for a forward proxy)",
                subcommand: "record")
        }
        if forward != nil && !upstreams.isEmpty {
            throw UsageError(
                message: "--upstream names a reverse proxy's upstreams; a forward proxy (--forward) goes to the "
                    + "--allow-host hosts the app asks for: use one or the other",
                subcommand: "record")
        }
        let listen = try TrafficSupport.listenAddress(parsed.value("--listen") ?? "127.0.0.1:0", subcommand: "record")
        guard let redaction = TrafficSupport.redaction(parsed, io: io) else { return ConformCommand.ExitCode.cannotRun }
        let timeout = try parsed.duration("--timeout") ?? .seconds(30)
        // One event loop a core (at most four): the listener joins them, so each request is served, sent upstream,
        // recorded and answered on one thread.
        let transport = Target.upstream(
            timeout: timeout, insecure: parsed.has("--insecure"), maxBodyBytes: try parsed.maxBody(),
            tls: try ClientTLSOptions.parse(parsed, subcommand: "record", io: io),
            loops: min(4, ProcessInfo.processInfo.activeProcessorCount))
        // The faults sit below the recording: what they answer is what the app gets and the recording holds.
        let upstream = try ClientFaultsOption.wrap(
            transport, parsed, holdLimit: timeout + .seconds(2), subcommand: "record", io: io)
        if let forward {
            return try await ForwardOptions.run(
                policy: forward, parsed: parsed, transport: upstream, out: out, redaction: redaction,
                listen: listen, timeout: timeout, io: io)
        }
        guard let tls = try ListenerTLS.resolve(parsed, host: listen.host, subcommand: "record", io: io) else {
            return ConformCommand.ExitCode.cannotRun
        }
        return await ProxySessions.run(
            upstreams: upstreams, transport: upstream, out: out, redaction: redaction, append: parsed.has("--append"),
            listen: listen, check: parsed.has("--check"),
            reports: try ProxySessions.reports(parsed, subcommand: "record", io: io),
            codes: try ProxySessions.codes(parsed, subcommand: "record"), banner: "Recording",
            limits: ProxyLimits(requestDeadline: timeout + .seconds(1)), serverLimits: try parsed.serverLimits(),
            tls: tls, io: io)
    }
}

/// The command line's side of a ``ProxySession`` (the library's): its output, its reports, and SIGINT or SIGTERM
/// as the way it stops.
enum ProxySessions {
    static func run(
        upstreams: [String: String], transport: any Transport, out: String, redaction: RedactionPolicy, append: Bool,
        listen: (host: String, port: UInt16), check: Bool, reports: [ReportTarget] = [],
        codes: ApplicationCodes = ApplicationCodes(), banner: String,
        limits proxyLimits: ProxyLimits = .default, serverLimits: HTTPServerLimits = .default,
        tls: ListenerTLS = .plain, origins: ReachedOrigin? = nil,
        configure: (inout ProxySession) -> Void = { _ in }, io: CommandIO
    ) async -> Int32 {
        var proxy = ProxySession(
            upstreams: upstreams, transport: transport, directory: io.resolve(out), shownDirectory: out,
            redaction: redaction, append: append, listen: listen, check: check, banner: banner, limits: proxyLimits,
            profile: ConformCommand.profile, out: io.out, err: io.err, problem: { io.report($0) })
        proxy.codes = codes
        proxy.serverLimits = serverLimits
        if let origins { proxy.reachedOrigin = { origins.origin(of: $0) } }
        // Plain HTTP, HTTPS, or both (`--tls`, `--tls-port`): the command line's listeners serve the proxy.
        proxy.serving = { handler, serverLimits in
            let listeners = try Listeners.start(
                host: listen.host, port: listen.port, limits: serverLimits, tls: tls, loops: transport.ioLoops
            ) { _ in handler }
            // An offline client fault takes these listeners off the network for its window.
            (transport as? ClientFaultTransport)?.offline.attach(listeners.servers)
            // The first listener speaks HTTPS when there is TLS; any other one plain HTTP.
            origins?.listening(
                listeners.servers.enumerated().map { index, server in
                    (server.boundPort, index == 0 && tls.identity != nil ? "https" : "http")
                })
            var notes: [String] = []
            if !tls.about.isEmpty { notes.append("TLS: \(tls.about)") }
            for server in listeners.servers.dropFirst() { notes.append("Also plain HTTP on \(server.baseURL)") }
            notes += DeviceAddresses.notes(
                host: listen.host, port: listeners.servers[0].boundPort,
                scheme: tls.identity == nil ? "http" : "https")
            return ProxySession.Listening(baseURL: listeners.baseURL, notes: notes, stop: listeners.stop)
        }
        configure(&proxy)
        let session = Session(
            console: HARCommands.console(io: io), reports: reports,
            credentialHeaders: ConformCommand.profile.credentialHeaderNames)
        return await proxy.run(session: session, until: { await Termination.wait() }).rawValue
    }

    /// The application codes a proxy session's check is told, which only `--check` uses: the options' need it; the
    /// environment's (`CONFORM_RESTRICTED`, …) are left alone without it.
    static func codes(_ parsed: Arguments, subcommand: String) throws(UsageError) -> ApplicationCodes {
        let options = Arguments.codeVariables.keys.contains { !parsed.values($0).isEmpty }
        guard !options || parsed.has("--check") else {
            throw UsageError(
                message: "--restricted, --restricted-access and --jwt need --check: they tell the check about the app",
                subcommand: subcommand)
        }
        return parsed.has("--check") ? CheckCommand.applicationCodes(parsed) : ApplicationCodes()
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
