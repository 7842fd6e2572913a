import ConformCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP forward proxy in front of a forwarding ``HTTPServer``: what `conform record --forward` listens with.
///
/// One thread accepts and reads the start of every new connection without consuming it, in one poll loop
/// (`ForwardProxyServer+Heads.swift`). An absolute-form plain-HTTP request goes to the server as it came (the handler
/// checks each request's host against the ``ForwardPolicy``). `CONNECT` to an intercepted host gets `200`, and the
/// connection goes to a second server that speaks TLS itself (libmicrohttpd's GnuTLS) with that host's leaf (SNI
/// must name the `CONNECT` host), so its head rules, limits, handler and ``ConnectionWatch`` apply unchanged and no
/// thread is held per tunnel; both servers run libmicrohttpd's event loop on a small pool of threads. Other hosts
/// are refused (`403`) or, when the policy says so, tunnelled undecrypted on a thread each, bounded by
/// ``ForwardLimits``, to an allowed port and never to an address of this machine. Every wait is bounded: the head
/// and the handshake by the head timeout, a name's resolution and an upstream connect by ``connectTimeout``, an
/// idle passed-through tunnel by ``idleTimeout`` (an intercepted one is the server's keep-alive connection, bounded
/// by its limits).
public final class ForwardProxyServer: Sendable {
    public let host: String
    public let policy: ForwardPolicy
    public let limits: HTTPServerLimits
    public let forwardLimits: ForwardLimits
    /// How long resolving and connecting to a tunnelled host may take.
    public let connectTimeout: Duration
    /// How long a tunnel (intercepted or passed through) may carry nothing either way before it is closed.
    public let idleTimeout: Duration
    private let requestedPort: UInt16
    private let address: ListenAddress
    private let server: HTTPServer
    /// Serves the intercepted tunnels, TLS and all.
    private let interceptor: HTTPServer
    private let handler: any HTTPHandler
    private let credentials: ForwardCredentials
    private let handshakeFailures: HandshakeFailures
    /// Where refusals and failed handshakes are told as they happen, and counted; `nil` counts them only here.
    public let notices: ForwardNotices?
    private let allowedAddresses: AllowedAddresses
    /// The listening socket, the wake pipe's write end, the bound port, and this machine's addresses then.
    private let state = Mutex<(listener: Int32, wake: Int32, port: UInt16, own: Set<[UInt8]>)>((-1, -1, 0, []))
    let tunnels = Mutex(Tunnels())
    let counters = ForwardCounters()
    /// Addresses judged as another machine's although they are this one's: only for tests, whose upstreams can
    /// only be on loopback.
    let elsewhereForTests = Mutex<Set<[UInt8]>>([])

    /// A stopped proxy; `identity` gives the leaf (PEM) presented for an intercepted host, `nil` if it has none.
    public init(
        handler: any HTTPHandler, host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPServerLimits = .default,
        forwardLimits: ForwardLimits? = nil, policy: ForwardPolicy,
        identity: @escaping @Sendable (String) -> TLSIdentity?, connectTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(120), log: HTTPServer.LogHandler? = nil, notices: ForwardNotices? = nil
    ) throws {
        guard let address = ListenAddress(host: host) else {
            throw HTTPServerError(
                .invalidHost,
                "'\(host)' is not an IPv4 or IPv6 address; use a numeric address such as 127.0.0.1, ::1 or 0.0.0.0")
        }
        let forwardLimits = forwardLimits ?? ForwardLimits(limits)
        guard forwardLimits.maxTunnels >= 1, (1...forwardLimits.maxTunnels).contains(forwardLimits.tunnelsPerAddress),
            (1...limits.waitingBudget).contains(forwardLimits.waitingPerAddress)
        else {
            throw HTTPServerError(
                .invalidLimits,
                "forward limits out of range (\(forwardLimits)); tunnels at least 1, tunnels per address 1 to the "
                    + "tunnels, waiting connections per address 1 to the waiting budget (\(limits.waitingBudget))")
        }
        // Both servers run libmicrohttpd's event loop on its pool: with a thread per connection (0.9.75), each
        // connection's thread polls the daemon's wake-up channel too and may clear it before the daemon sees it, so
        // a connection handed over, or one that ended, could wait for an unrelated wake-up to be served or cleaned up.
        var served = limits
        served.threadPerConnection = false
        self.server = try HTTPServer(handler: handler, host: host, limits: served, log: log, forwarding: true)
        self.interceptor = try HTTPServer(
            handler: handler, host: host, limits: served, log: log, forwarding: true, intercepting: true)
        self.host = host
        self.address = address
        self.requestedPort = port
        self.limits = limits
        self.forwardLimits = forwardLimits
        self.policy = policy
        self.handler = handler
        self.credentials = ForwardCredentials(identity: identity)
        self.notices = notices
        self.handshakeFailures = HandshakeFailures(notices: notices)
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.allowedAddresses = AllowedAddresses(policy: policy, timeout: connectTimeout)
    }

    deinit { stop() }

    /// The port the proxy listens on, or 0 when it is not running.
    public var boundPort: UInt16 { state.withLock { $0.port } }

    /// `http://host:port`: what a client's proxy setting names.
    public var baseURL: String {
        let port = boundPort
        switch address {
        case .v4: return "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
        case .v6: return "http://\(host == "::" ? "[::1]" : "[\(host)]"):\(port)"
        }
    }

    /// `CONNECT`s refused, and intercepted handshakes that failed (no ClientHello, a wrong SNI, too slow).
    public var refusedCount: Int { counters.refused.load(ordering: .relaxed) }
    public var failedHandshakeCount: Int { handshakeFailures.value }
    /// Connections waiting for their head now, and tunnels passed through now.
    public var waitingCount: Int { counters.waiting.load(ordering: .relaxed) }
    public var tunnelCount: Int { tunnels.withLock { $0.entries.count } }
    /// Waiting connections closed so far to make room for new clients (the waiting budget, per address or in all),
    /// and connections closed for a head not complete in time.
    public var crowdedCount: Int { counters.crowded.load(ordering: .relaxed) }
    public var slowHeadCount: Int { counters.slowHeads.load(ordering: .relaxed) }
    /// Tunnels cut to make room for new ones, and `CONNECT`s refused because their address held its share.
    public var cutTunnelCount: Int { counters.cutTunnels.load(ordering: .relaxed) }
    /// Connections the servers did not take (their connection limit reached); each was closed.
    public var failedHandOverCount: Int { counters.failedHandOvers.load(ordering: .relaxed) }
    /// Connections the plain and intercepting servers hold waiting, cut as slow or crowded, as their watches count.
    public var serverDisconnects: (slowHeads: Int, crowded: Int) {
        (
            server.slowHeadDisconnects + interceptor.slowHeadDisconnects,
            server.crowdedDisconnects + interceptor.crowdedDisconnects
        )
    }

    /// Binds and starts accepting; does nothing if already started.
    public func start() throws {
        if state.withLock({ $0.listener }) >= 0 { return }
        try server.start()
        do { try interceptor.start() } catch {
            server.stop()
            throw error
        }
        let family = { if case .v6 = address { return AF_INET6 } else { return AF_INET } }()
        let listener = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var one: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockaddr(port: requestedPort) { bind(listener, $0, $1) }
        var pipeEnds: [Int32] = [-1, -1]
        guard listener >= 0, bound == 0, listen(listener, 1024) == 0,
            pipe(&pipeEnds) == 0
        else {
            let reason = String(cString: strerror(errno))
            if listener >= 0 { close(listener) }
            server.stop()
            interceptor.stop()
            throw HTTPServerError(
                .cannotListen,
                "cannot listen on \(host):\(requestedPort): \(reason); choose another port or pass 0 to pick a free one"
            )
        }
        SocketIO.setNonBlocking(listener)
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            SocketIO.setNonBlocking(end)
        }
        let (wakeRead, wakeWrite) = (pipeEnds[0], pipeEnds[1])
        var storage = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        // sin_port and sin6_port sit at the same offset.
        let port = UInt16(bigEndian: storage.sin6_port)
        var own = ForwardAddress.ofThisMachine()
        if case .v4(let bound) = address {
            own.insert(withUnsafeBytes(of: bound) { Array($0) })
        } else if case .v6(let bound) = address {
            own.insert(ForwardAddress(bytes: withUnsafeBytes(of: bound) { Array($0) }, port: 0).unmapped)
        }
        state.withLock { $0 = (listener, wakeWrite, port, own) }
        let thread = Thread { [self] in acceptLoop(listener, wake: wakeRead) }
        thread.name = "conform-forward-accept"
        thread.start()
    }

    /// Stops accepting, cuts every tunnel and stops the servers; safe to call twice.
    public func stop() {
        let (listener, wake) = state.withLock { state in
            let taken = (state.listener, state.wake)
            state = (-1, -1, 0, [])
            return taken
        }
        guard listener >= 0 else { return }
        // Wakes the accept loop, which closes its sockets itself: closed here, a number could be reused by another
        // socket before the loop sees it.
        var byte: UInt8 = 1
        _ = write(wake, &byte, 1)
        close(wake)
        tunnels.withLock { tunnels in
            for entry in tunnels.entries.values { entry.cut() }
        }
        server.stop()
        interceptor.stop()
    }

    /// Whether the proxy is still running with `listener`.
    func isRunning(_ listener: Int32) -> Bool { state.withLock { $0.listener } == listener }

    /// A complete head: a plain request goes to the server, a `CONNECT` is answered, handed over, or given to a
    /// thread of its own when it needs a name resolved or may become a tunnel. Runs on the accept loop: nothing here
    /// waits on a client.
    func dispatch(_ client: Int32, from address: [UInt8], _ head: ForwardHead) {
        SocketIO.setReceiveLowWater(client, 1)
        guard head.isConnect else {
            // The server reads the request itself and judges each request's host; it owns the socket from here,
            // and closes it itself when it cannot take it.
            if !server.addConnection(client, origin: nil) { counters.failedHandOvers.add(1, ordering: .relaxed) }
            return
        }
        ForwardHead.consume(client, count: head.length)
        let now = ContinuousClock.now + .milliseconds(100)
        guard let authority = head.connectAuthority, let port = authority.port else {
            refuse(client, 400, "BAD_REQUEST", "CONNECT needs HOST:PORT (such as api.example.com:443)", now)
            close(client)
            return
        }
        let decision = policy.connect(host: authority.host, port: port)
        if decision == .intercept {
            intercept(client, leaf: authority.host, origin: Self.origin(authority.host, port), now)
            return
        }
        // An IP literal may be an allowed host's address, and a tunnel's host must be resolved and judged: both may
        // wait on a name server, so they run on a thread of their own.
        let mayBeAllowed = policy.allowed.contains { ($0.port ?? 443) == port }
        if decision == .tunnel || mayBeAllowed && ForwardResolver.numeric(authority.host, port: port) != nil {
            startTunnel(client, from: address, to: authority, port: port)
            return
        }
        if case .refuse(let reason) = decision { refuse(client, 403, "FORWARD_NOT_ALLOWED", reason, now) }
        close(client)
    }

    /// `https://host[:port]` as requests through a tunnel to `host:port` are recorded.
    static func origin(_ host: String, _ port: UInt16) -> String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "https://\(shown)" + (port == 443 ? "" : ":\(port)")
    }

    /// Answers `200` and hands the connection to the intercepting server, which owns (and closes) it from then on.
    /// `leaf` is the host the client asked for (its certificate's name), `origin` the allowed host it stands for.
    private func intercept(_ client: Int32, leaf: String, origin: String, _ deadline: ContinuousClock.Instant) {
        guard let credential = credentials.credential(for: leaf) else {
            refuse(client, 502, "BAD_GATEWAY", "no certificate can be made for \(leaf)", deadline)
            close(client)
            return
        }
        guard established(client, deadline) else {
            close(client)
            return
        }
        counters.intercepted.add(1, ordering: .relaxed)
        let interception = Interception(host: leaf, credential: credential, failures: handshakeFailures)
        if !interceptor.addConnection(client, origin: origin, interception: interception) {
            counters.failedHandOvers.add(1, ordering: .relaxed)
        }
    }

    /// Takes a tunnel slot for `client` and runs the rest of its `CONNECT` on a thread of its own; refuses with 503
    /// when its address holds its share of tunnels or twice ``ForwardLimits/maxTunnels`` are still ending.
    private func startTunnel(_ client: Int32, from address: [UInt8], to authority: ForwardAuthority, port: UInt16) {
        let entry = TunnelEntry(socket: client, address: address)
        let refusal = tunnels.withLock { tunnels -> String? in
            if tunnels.count(of: address) >= forwardLimits.tunnelsPerAddress {
                return "this client address already holds \(forwardLimits.tunnelsPerAddress) tunnels; close one first"
            }
            if tunnels.entries.count >= forwardLimits.maxTunnels {
                // Room for the new tunnel: the one idle longest gives way (it may take a moment to end, so twice
                // the limit is the most that exist at once).
                if let idlest = tunnels.idlest() {
                    idlest.cut()
                    counters.cutTunnels.add(1, ordering: .relaxed)
                }
                if tunnels.entries.count >= 2 * forwardLimits.maxTunnels {
                    return "\(forwardLimits.maxTunnels) tunnels are open; try again in a moment"
                }
            }
            tunnels.insert(entry)
            return nil
        }
        if let refusal {
            refuse(client, 503, "SERVICE_UNAVAILABLE", refusal, .now + .milliseconds(100))
            close(client)
            return
        }
        let thread = Thread { [self] in
            runTunnel(entry, to: authority, port: port)
        }
        thread.name = "conform-forward-tunnel"
        thread.start()
    }

    /// Resolves and judges the `CONNECT` host, then intercepts it (an allowed host's address), refuses it, or
    /// passes bytes to it undecrypted (`--other-hosts tunnel`) until either side closes or both idle.
    private func runTunnel(_ entry: TunnelEntry, to authority: ForwardAuthority, port: UInt16) {
        let client = entry.socket
        let deadline = ContinuousClock.now + .seconds(limits.headerTimeoutSeconds)
        /// Gives up the slot; the socket is closed after, so a cut never reaches a reused descriptor.
        func release(closing: Bool) {
            tunnels.withLock { $0.remove(entry) }
            if closing { close(client) }
        }
        switch route(authority, port: port) {
        case .intercept(let leaf, let origin):
            release(closing: false)
            intercept(client, leaf: leaf, origin: origin, deadline)
        case .refuse(let status, let code, let reason):
            refuse(client, status, code, reason, deadline)
            release(closing: true)
        case .tunnel(let addresses):
            guard let upstream = ForwardHead.connect(to: addresses, timeout: connectTimeout) else {
                refuse(client, 502, "BAD_GATEWAY", "cannot connect to \(authority.host):\(port)", deadline)
                release(closing: true)
                return
            }
            if entry.isCut == false, established(client, deadline) {
                counters.passed.add(1, ordering: .relaxed)
                entry.touch()
                Pump.run(PlainEnd(client), PlainEnd(upstream), idle: idleTimeout, touch: entry.touch)
            }
            release(closing: true)
            close(upstream)
        }
    }

    /// Where a `CONNECT` that is not an allowed host by name goes.
    enum Route {
        case intercept(leaf: String, origin: String)
        case tunnel([ForwardAddress])
        case refuse(Int, String, String)
    }

    /// An IP literal that is an allowed host's address (on the same port) is that host, intercepted and recorded;
    /// any other host is refused unless the policy tunnels it, and then only when none of its addresses is one of
    /// this machine's (loopback, unspecified, link-local, an interface's: the proxy's own among them).
    func route(_ authority: ForwardAuthority, port: UInt16) -> Route {
        let literal = ForwardResolver.numeric(authority.host, port: port)
        if let literal, let allowed = allowedAddresses.host(of: literal, port: port) {
            return .intercept(leaf: literal[0].text, origin: Self.origin(allowed.host, port))
        }
        switch policy.connect(host: authority.host, port: port) {
        case .intercept: return .intercept(leaf: authority.host, origin: Self.origin(authority.host, port))
        case .refuse(let reason): return .refuse(403, "FORWARD_NOT_ALLOWED", reason)
        case .tunnel: break
        }
        let addresses: [ForwardAddress]
        switch literal.map({ .success($0) })
            ?? ForwardResolver.resolve(authority.host, port: port, timeout: connectTimeout)
        {
        case .success(let found): addresses = found
        case .failure(.busy):
            return .refuse(
                503, "SERVICE_UNAVAILABLE", "\(ForwardResolver.maxInFlight) names are being resolved; try again")
        case .failure(.timedOut):
            return .refuse(502, "BAD_GATEWAY", "\(authority.host) was not resolved within \(connectTimeout)")
        case .failure(.failed(let reason)):
            return .refuse(502, "BAD_GATEWAY", "cannot resolve \(authority.host): \(reason)")
        }
        let own = state.withLock { $0.own }
        let elsewhere = elsewhereForTests.withLock { $0 }
        if let local = addresses.first(where: {
            !elsewhere.contains($0.unmapped) && ($0.special != nil || own.contains($0.unmapped))
        }) {
            let what = local.special ?? "an address of this machine"
            let named = ForwardAuthority(host: authority.host, port: port)
            // An IP literal in another spelling is suggested as the address it is.
            let allow = literal == nil ? named : ForwardAuthority(host: local.text, port: port)
            return .refuse(
                403, "FORWARD_NOT_ALLOWED",
                "CONNECT to \(named) is not allowed: \(authority.host) is \(local.text), \(what); the proxy tunnels "
                    + "only to other machines (to open and record it, add --allow-host \(allow))")
        }
        return .tunnel(addresses)
    }

    private func established(_ client: Int32, _ deadline: ContinuousClock.Instant) -> Bool {
        SocketIO.writeAll(client, Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8), until: deadline)
    }

    /// Answers a `CONNECT` the proxy will not open with the handler's envelope, then the connection closes.
    private func refuse(
        _ client: Int32, _ status: Int, _ code: String, _ message: String, _ deadline: ContinuousClock.Instant
    ) {
        counters.refused.add(1, ordering: .relaxed)
        notices?.note(.refusedConnect, "refused CONNECT (\(status)): \(message)")
        let response = handler.refusal(status: HTTPStatus(status), code: code, message: message)
        var head = "HTTP/1.1 \(status) \(ForwardHead.reason(status))\r\n"
        for field in response.headerFields where !["content-length", "connection"].contains(field.name.lowercased()) {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        _ = SocketIO.writeAll(client, Array(head.utf8) + Array(response.body), until: deadline)
    }
}
