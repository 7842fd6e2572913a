import ConformCore
import ConformDiagnostics
import ConformFlowCheck
import ConformReport
import ConformServer
import ConformTraffic
import Synchronization

/// A recording proxy that records (and, with a check, judges the flow's rules) until told to stop: the session of
/// `conform record` and `conform serve --check`. Its check's result goes through a ``Session`` like every command's.
public struct ProxySession: Sendable {
    /// The upstream by path (`mobile`, `backend`) or `*` for all.
    public var upstreams: [String: String]
    /// What forwards to them: curl to a live upstream, or the reference in process for `serve --check`.
    public var transport: any Transport
    /// The recording directory, and its name as the user gave it.
    public var directory: String
    public var shownDirectory: String
    public var redaction: RedactionPolicy
    /// Whether to add to an existing recording.
    public var append: Bool
    public var listen: (host: String, port: UInt16)
    /// Whether the traffic is judged against the flow's rules, live and at the end.
    public var check: Bool
    /// The application codes the check is told (`--restricted`, `--restricted-access`, `--jwt`), in clear: each is
    /// matched as given and as the pseudonym this recording's redaction gives it.
    public var codes = ApplicationCodes()
    /// What the first line says the proxy does ("Recording", "Checking an app against …").
    public var banner: String
    public var limits: ProxyLimits
    /// The listening server's limits (request and response heads, connections).
    public var serverLimits: HTTPServerLimits = .default
    /// The protocol the traffic follows: its endpoints and rules for the check, its error envelope for refusals.
    public var profile: ProtocolProfile
    /// Where the session writes its lines, its warnings, and the problems that stop it.
    public var out: any TextSink
    public var err: any TextSink
    public var problem: @Sendable (Diagnostic) -> Void
    /// How the proxy's handler is served: by default one plain-HTTP ``HTTPServer`` on ``listen``; the command line
    /// gives its listeners (HTTPS, or both).
    public var serving: @Sendable (any HTTPHandler, HTTPServerLimits) throws -> Listening
    /// Forward mode (`record --forward`): the hosts the proxy opens and records; ``serving`` then starts a
    /// ``ForwardProxyServer``. `nil` for a reverse proxy.
    public var forward: ForwardPolicy?
    /// For an in-process transport only: ``RecordingProxy/reachedOrigin``.
    public var reachedOrigin: (@Sendable (HTTPRequest) -> String?)?
    /// In forward mode, where refusals and failed handshakes are told and counted (its summary ends the session).
    public var notices: ForwardNotices?

    /// A proxy being served: the address clients use, what more the first lines say about it, how to stop it.
    public struct Listening: Sendable {
        public var baseURL: String
        public var notes: [String]
        public var stop: @Sendable () -> Void

        public init(baseURL: String, notes: [String] = [], stop: @escaping @Sendable () -> Void) {
            self.baseURL = baseURL
            self.notes = notes
            self.stop = stop
        }
    }

    public init(
        upstreams: [String: String], transport: any Transport, directory: String, shownDirectory: String,
        redaction: RedactionPolicy, append: Bool, listen: (host: String, port: UInt16), check: Bool, banner: String,
        limits: ProxyLimits = .default, profile: ProtocolProfile, out: any TextSink, err: any TextSink,
        problem: @escaping @Sendable (Diagnostic) -> Void
    ) {
        self.profile = profile
        self.upstreams = upstreams
        self.transport = transport
        self.directory = directory
        self.shownDirectory = shownDirectory
        self.redaction = redaction
        self.append = append
        self.listen = listen
        self.check = check
        self.banner = banner
        self.limits = limits
        self.out = out
        self.err = err
        self.problem = problem
        let loops = transport.ioLoops
        self.serving = { handler, limits in
            // The server joins the transport's loops: a request, its exchange upstream and the answer stay on one
            // thread.
            let server = try HTTPServer(
                handler: handler, host: listen.host, port: listen.port, limits: limits, loops: loops)
            try server.start()
            return Listening(baseURL: server.baseURL, stop: server.stop)
        }
    }

    /// Records until `stop` returns; with a check, the check's result goes through `session` (its console and
    /// reports) and gives the status. A recording that could not be written whole could not run.
    public func run(session: Session, until stop: @Sendable () async -> Void) async -> RunStatus {
        let started = ContinuousClock.now
        let writer: RecordingWriter
        do {
            // The origin each upstream is reached at, which an implementation naming itself answers with; none for
            // an in-process upstream (it is rebased onto the origin the client reached) or a forward proxy (its
            // exchanges keep their absolute URLs).
            let origins =
                reachedOrigin == nil && forward == nil ? upstreams.mapValues { URLParts($0).origin } : [:]
            writer = try RecordingWriter(
                directory: directory, profile: profile, redaction: redaction, append: append, upstreams: origins)
            if let dropped = writer.droppedTail { err.write(dropped.warning + "\n") }
        } catch {
            problem(error.diagnostic)
            return .cannotRun
        }
        let (check, err, out) = (self.check, self.err, self.out)
        let live = LiveFlowCheck(
            codes: check ? codes : ApplicationCodes(), profile: profile, redactor: writer.redactor,
            onViolation: { err.write("violation: \($0)\n") })
        let count = Mutex((exchanges: 0, events: 0))
        @Sendable func checked(_ record: TraceRecord) { if check { live.observe(record) } }
        let problem = self.problem
        let serverLimits = self.serverLimits
        var configured = RecordingProxy(
            upstreams: upstreams, transport: transport, writer: writer,
            onExchange: { exchange in
                count.withLock { $0.exchanges += 1 }
                checked(.exchange(exchange))
            },
            onError: { problem(Diagnostic(.cliProxy, message: "\($0)")) },
            onEvent: { event in
                count.withLock { $0.events += 1 }
                out.write("App event \(event.seq): \(event.kind)\n")
                checked(.event(event))
            }, limits: limits, profile: profile, forward: forward, serverLimits: serverLimits)
        configured.reachedOrigin = reachedOrigin
        configured.notices = notices
        let proxy = configured
        // A request waiting for its upstream holds no server thread (its connection is suspended until the answer
        // comes); the proxy's limits bound how many wait and for how long. The forward proxy's servers do the same
        // (`ForwardProxyServer`).
        let server: Listening
        do {
            server = try serving(proxy.handler, serverLimits)
        } catch {
            problem(Listeners.cannotListen(host: listen.host, port: listen.port, option: "--listen", error))
            return .cannotRun
        }
        let base = server.baseURL
        if let forward {
            let hosts = forward.allowed.map(\.description).joined(separator: ", ")
            out.write("\(banner) as a forward proxy on \(base) (opening \(hosts)) into \(shownDirectory)\n")
            out.write(
                forward.otherHosts == .tunnel
                    ? "Other hosts: tunnelled through CONNECT to port "
                        + "\(forward.tunnelPorts.map(String.init).joined(separator: ", ")) without decryption, "
                        + "not recorded\n"
                    : "Other hosts: refused (403)\n")
            for note in server.notes { out.write(note + "\n") }
            out.write("Set \(base) as the app's or the device's HTTP proxy. Press Ctrl-C to stop.\n")
            out.write(
                "App events: POST http://\(ForwardPolicy.eventsHost)\(RecordingProxy.eventsPath) through the proxy "
                    + "(never forwarded).\n")
        } else {
            let targets = upstreams.sorted { $0.key < $1.key }.map {
                $0.key == "*" ? $0.value : "\($0.key) → \($0.value)"
            }
            out.write(
                "\(banner) on \(base) (forwarding to \(targets.joined(separator: ", "))) into \(shownDirectory)\n")
            for note in server.notes { out.write(note + "\n") }
            out.write("Point the app's base URL at \(base). Press Ctrl-C to stop.\n")
            out.write("App events: POST \(base)\(RecordingProxy.eventsPath) (never forwarded).\n")
        }
        await stop()
        server.stop()
        writer.sync()
        writer.close()
        let total = count.withLock { $0 }
        let events = total.events == 0 ? "" : " and \(total.events) app event\(total.events == 1 ? "" : "s")"
        out.write(
            "Recorded \(total.exchanges) exchange\(total.exchanges == 1 ? "" : "s")\(events) into \(shownDirectory)\n")
        for line in notices?.summary ?? [] { out.write(line + "\n") }
        let lost = writer.lostCount
        if lost > 0 {
            // The clients were answered, but the recording misses what could not be written: not a whole recording.
            problem(
                Diagnostic(
                    .cliProxy,
                    message: "\(lost) exchange\(lost == 1 ? "" : "s") or event\(lost == 1 ? "" : "s") could not be "
                        + "written (reported above); the recording is incomplete",
                    help: "free disk space and record again; the lines that were written are whole and readable"))
            return .cannotRun
        }
        guard check else { return .conforms }
        for warning in live.warnings { err.write(warning) }
        // The live check's result, through the one console and the reports, as `conform check` of the recording.
        let elapsed = ContinuousClock.now - started
        let result = live.result(
            path: shownDirectory, exchanges: total.exchanges, events: total.events,
            duration: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let ran = await session.run(result)
        for p in ran.problems { problem(p) }
        return ran.status
    }
}
