internal import CGnuTLS
internal import CMicroHTTPD
import ConformCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Serves any ``HTTPHandler`` over HTTP/1.1 on libmicrohttpd: epoll (poll() with TLS), a small thread pool, keep-alive
/// and limits.
///
/// A response with `Transfer-Encoding: chunked` and no `Content-Length` is sent chunked; one with
/// `Connection: close` closes the connection after it.
public final class HTTPServer: Sendable {
    /// Receives the server library's own diagnostics (malformed requests, resource limits) instead of stderr.
    public typealias LogHandler = @Sendable (String) -> Void

    public let host: String
    public let limits: HTTPServerLimits
    /// The key and certificate of an HTTPS listener, `nil` for plain HTTP.
    public let tls: TLSIdentity?
    private let requestedPort: UInt16
    private let address: ListenAddress
    /// Whether connections handed over speak TLS with their tunnel's leaf (a forward proxy's intercepted tunnels).
    private let intercepting: Bool
    /// The event loops the server joins instead of running threads of its own (see the public initializer).
    private let loops: [any IOLoop]
    private let context: ServerContext
    private let running = Mutex<RunningDaemon?>(nil)
    /// ``stop()`` and ``pause(for:offline:resumed:)`` calls counted, and the window of the last pause while it lasts:
    /// a pause listens again only when nothing came after it.
    private let pauses = Mutex(Pauses())

    private struct Pauses {
        var count = 0
        var window: Window?
    }

    /// A pause's window: the port held while it lasts, and who is told how it ends. A stop or a later pause ends it
    /// at once (the port let go, `resumed` told `.superseded`).
    private struct Window {
        let generation: Int
        let held: PortReservation?
        let resumed: @Sendable (PauseEnd) -> Void
    }

    /// Creates a stopped server; `port` 0 picks a free port when ``start()`` binds; with `tls` it speaks HTTPS.
    ///
    /// With `forwarding`, the server opens no socket of its own: a forward proxy's acceptor hands it connections
    /// (``addConnection(_:origin:)``) and it serves them with the same head rules and limits. With `intercepting`
    /// too, every connection handed over speaks TLS with the leaf of its tunnel's host
    /// (``addConnection(_:origin:interception:)``).
    ///
    /// With `loops` (a transport's ``Transport/ioLoops``), a plain-HTTP server whose handler answers later
    /// (``DeferredHTTPHandler``) runs no thread of its own: it starts one libmicrohttpd daemon per loop on one
    /// listening socket, and each loop serves its daemon's connections on its own thread, where the handler's work and
    /// the transport's exchange also run. A server with TLS, a thread per connection or `forwarding` ignores `loops`.
    public convenience init(
        handler: any HTTPHandler, host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPServerLimits = .default,
        tls: TLSIdentity? = nil, log: LogHandler? = nil, forwarding: Bool = false, loops: [any IOLoop] = []
    ) throws {
        try self.init(
            handler: handler, host: host, port: port, limits: limits, tls: tls, log: log, forwarding: forwarding,
            intercepting: false, loops: loops)
    }

    init(
        handler: any HTTPHandler, host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPServerLimits = .default,
        tls: TLSIdentity? = nil, log: LogHandler? = nil, forwarding: Bool = false, intercepting: Bool,
        loops: [any IOLoop] = []
    ) throws {
        guard let address = ListenAddress(host: host) else {
            throw HTTPServerError(
                .invalidHost,
                "'\(host)' is not an IPv4 or IPv6 address; use a numeric address such as 127.0.0.1, ::1 or 0.0.0.0")
        }
        guard limits.maxBodyBytes >= 0, (1024...1024 * 1024).contains(limits.maxHeaderBytes),
            (1024...1024 * 1024).contains(limits.maxResponseHeadBytes), limits.connectionTimeoutSeconds >= 0,
            (1...3600).contains(limits.headerTimeoutSeconds),
            (limits.headerTimeoutSeconds...86400).contains(limits.requestTimeoutSeconds),
            limits.minBodyBytesPerSecond >= 0, (0...3600).contains(limits.bodyGraceSeconds),
            (1...HTTPFields.maxCount).contains(limits.maxHeaderFields),
            limits.maxConnections >= 1, (1...limits.maxConnections).contains(limits.waitingBudget),
            (1...64).contains(limits.threads)
        else {
            throw HTTPServerError(
                .invalidLimits,
                "limits out of range (\(limits)); request and response heads need 1 KB to 1 MB, 1 to "
                    + "\(HTTPFields.maxCount) request fields, the head "
                    + "timeout 1 to 3600 s, the request timeout from the head timeout to 86400 s, the body grace 0 to "
                    + "3600 s, threads 1 to 64, connections at least 1, waiting connections 1 to the connections"
            )
        }
        self.host = host
        self.limits = limits
        self.tls = tls
        self.requestedPort = port
        self.address = address
        self.intercepting = forwarding && intercepting
        self.context = ServerContext(handler: handler, limits: limits, log: log, forwarding: forwarding)
        let joinable = tls == nil && !limits.threadPerConnection && !forwarding && context.deferred != nil
        self.loops = joinable ? loops : []
    }

    /// Whether the server runs on its transport's event loops rather than threads of its own.
    public var joinsLoops: Bool { !loops.isEmpty }

    deinit { stop() }

    /// Binds and starts serving on background threads (or on the loops it joins); does nothing if already started.
    public func start() throws {
        try running.withLock { state in
            if state != nil { return }
            state = try launch(port: requestedPort)
        }
    }

    /// Stops accepting, finishes in-flight requests and closes every connection; safe to call twice.
    public func stop() {
        let ended = pauses.withLock { state -> Window? in
            state.count += 1
            defer { state.window = nil }
            return state.window
        }
        halt()
        ended?.resumed(.superseded)
    }

    /// How a ``pause(for:offline:resumed:)`` ended.
    public enum PauseEnd: Sendable, Hashable {
        /// Listening again on the same port.
        case listening
        /// A ``stop()`` or another pause came first: this one does not listen again.
        case superseded
        /// The port could not be listened on again (another program took it): why.
        case failed(String)
    }

    /// Goes offline for `duration`: closes the listening socket and every connection (clients meanwhile meet
    /// refused connections, as with a server that is down), then listens again on the same port; `offline` is called
    /// once the server is down, `resumed` says how the window ended. The port stays held meanwhile by a socket that
    /// does not listen (``PortReservation``), so no other program that asks for a free port is given it. `false`
    /// when the server is not running or has no socket of its own.
    @discardableResult
    public func pause(
        for duration: Duration, offline: @escaping @Sendable () -> Void = {},
        resumed: @escaping @Sendable (PauseEnd) -> Void = { _ in }
    ) -> Bool {
        let port = boundPort
        guard port != 0, !context.forwarding else { return false }
        let (generation, earlier) = pauses.withLock { state -> (Int, Window?) in
            state.count += 1
            defer { state.window = nil }
            return (state.count, state.window)
        }
        earlier?.resumed(.superseded)
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        // Never on the caller's thread: a handler that asks for the pause must finish before the daemon can stop.
        DispatchQueue.global().async { [self] in
            halt()
            // Held from the moment the listener closed (`nil` only if another program bound the port in between).
            let window = Window(
                generation: generation, held: PortReservation(address: address, port: port), resumed: resumed)
            let current = pauses.withLock { state -> Bool in
                guard state.count == generation else { return false }
                state.window = window
                return true
            }
            guard current else { return resumed(.superseded) }
            offline()
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
                // A server gone was stopped, and its stop told `resumed`.
                self?.endWindow(generation, port: port)
            }
        }
        return true
    }

    /// Listens again when the window of pause `generation` is still open (a stop or a later pause closed it and said
    /// so), on the socket that held the port.
    private func endWindow(_ generation: Int, port: UInt16) {
        // Under the daemon's lock, so that a stop either ends the window first or halts what this starts.
        let ended = running.withLock { state -> (Window, Result<Bool, any Error>)? in
            let window = pauses.withLock { pauses -> Window? in
                guard pauses.window?.generation == generation else { return nil }
                defer { pauses.window = nil }
                return pauses.window
            }
            guard let window else { return nil }
            guard state == nil else { return (window, .success(false)) }
            do {
                state = try launch(port: port, listeningSocket: window.held?.listen())
                return (window, .success(true))
            } catch {
                return (window, .failure(error))
            }
        }
        guard let (window, outcome) = ended else { return }
        switch outcome {
        case .success(let listening): window.resumed(listening ? .listening : .superseded)
        case .failure(let error): window.resumed(.failed("\(error)"))
        }
    }

    private func halt() {
        let stopped = running.withLock { state in
            let current = state
            state = nil
            return current
        }
        guard let stopped else { return }
        stopped.sweeper.cancel()
        // libmicrohttpd must not stop with a connection suspended: the deferred answers come first (the loops go on
        // serving joined daemons meanwhile, so the answers are sent).
        context.deferredAnswers.drain()
        if stopped.joined.isEmpty {
            MHD_stop_daemon(stopped.daemon.pointer)
        } else {
            for (loop, daemon) in stopped.joined {
                loop.detach(daemon)
                daemon.stop()
            }
            context.deferredAnswers.setWakers([])
        }
        stopped.context.release()
    }

    /// Connections shut down so far for sending their request head too slowly (slow-drip clients).
    public var slowHeadDisconnects: Int { context.watch.cutCount }

    /// Connections shut down so far for sending a body below ``HTTPServerLimits/minBodyBytesPerSecond`` or a
    /// request past ``HTTPServerLimits/requestTimeoutSeconds``.
    public var slowRequestDisconnects: Int { context.watch.slowRequestCount }

    /// Waiting connections shut down so far to keep room for new clients (``HTTPServerLimits/waitingBudget``).
    public var crowdedDisconnects: Int { context.watch.crowdedCount }

    /// Serves an accepted connection (a forwarding server's): `origin` (`https://host:port`) is the origin of a
    /// tunnel, joined to each request's origin-form target; `nil` for a plain connection whose requests name their
    /// URL. The server owns and closes `socket` in any case; `false` when it is not running or refused it.
    public func addConnection(_ socket: Int32, origin: String?) -> Bool {
        addConnection(socket, origin: origin, interception: nil)
    }

    /// ``addConnection(_:origin:)`` of an intercepting server: the client's TLS handshake on `socket` gets
    /// `interception`'s leaf, and only when its SNI names no other host.
    func addConnection(_ socket: Int32, origin: String?, interception: Interception?) -> Bool {
        guard let daemon = running.withLock({ $0?.daemon }), (interception != nil) == intercepting else {
            close(socket)
            return false
        }
        if let origin {
            context.pendingOrigins.withLock { $0[socket] = TunnelOrigin(origin, interception: interception) }
        }
        if let interception { InterceptedSockets.register(socket, interception) }
        var peer = sockaddr_in()
        peer.sin_family = sa_family_t(AF_INET)
        peer.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let added = withUnsafePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                MHD_add_connection(daemon.pointer, socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if added != .YES {
            context.pendingOrigins.withLock { _ = $0.removeValue(forKey: socket) }
            if let interception { InterceptedSockets.remove(socket, interception) }
            return false
        }
        return true
    }

    /// The port the server listens on, or 0 when it is not running.
    public var boundPort: UInt16 { running.withLock { $0?.port ?? 0 } }

    /// `http://host:port` (`https://` with TLS) of the running server, suitable as a transport base URL.
    public var baseURL: String {
        let port = boundPort
        let shownHost: String
        switch address {
        case .v4: shownHost = host == "0.0.0.0" ? "127.0.0.1" : host
        case .v6: shownHost = host == "::" ? "[::1]" : "[\(host)]"
        }
        return "\(tls == nil ? "http" : "https")://\(shownHost):\(port)"
    }

    /// Starts libmicrohttpd on `requestedPort`, or on `listeningSocket` (bound and listening, the daemon's to close)
    /// when one is given.
    private func launch(port requestedPort: UInt16, listeningSocket: Int32? = nil) throws -> RunningDaemon {
        context.deferredAnswers.reopen()
        // libmicrohttpd runs a thread per connection only with poll(), and then without a pool. A TLS listener polls
        // with poll() too: under epoll, libmicrohttpd 0.9.75 keeps a connection whose handshake waits for its
        // client marked readable (GnuTLS's EAGAIN never clears the mark), so its thread calls epoll_wait with a zero
        // timeout and recv() again and again, a full core for every stalled or slow handshake, until the head
        // timeout. poll() asks the socket each time, so a waiting handshake costs nothing (bench/tls).
        let usesPoll = limits.threadPerConnection || tls != nil || intercepting
        let joining = !loops.isEmpty
        var flags =
            (joining ? 0 : MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
            | (usesPoll ? MHD_USE_POLL.rawValue : MHD_USE_EPOLL.rawValue)
            | (limits.threadPerConnection ? MHD_USE_THREAD_PER_CONNECTION.rawValue : 0)
        if case .v6 = address { flags |= MHD_USE_IPv6.rawValue }
        if context.forwarding { flags |= MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_ITC.rawValue }
        if context.deferred != nil { flags |= MHD_ALLOW_SUSPEND_RESUME.rawValue }
        let hasLog = context.log != nil
        if hasLog { flags |= MHD_USE_ERROR_LOG.rawValue }
        let retained = Unmanaged.passRetained(context)
        let cls = retained.toOpaque()
        // Joined daemons share the connections' budget and run no pool: each is one loop's.
        let connections = joining ? max(1, limits.maxConnections / loops.count) : limits.maxConnections
        let poolSize = joining || limits.threadPerConnection ? 1 : limits.threads
        func start(_ port: UInt16, on socket: Int32?) -> OpaquePointer? {
            address.withSockaddr(port: port) { sockaddr, _ in
                // libmicrohttpd copies neither text: both stay alive in `tls` for the daemon's life. An intercepting
                // server has no identity of its own: GnuTLS asks for each tunnel's leaf (`InterceptedTLS`).
                tls.withPEM { key, certificate in
                    conform_mhd_start(
                        UInt32(flags), sockaddr, conformServerAccess, cls, conformServerCompleted, cls,
                        conformServerURILog, cls, conformServerLog, cls, conformServerConnection, cls,
                        UInt32(poolSize), limits.connectionMemoryBytes, UInt32(limits.connectionTimeoutSeconds),
                        UInt32(connections), key, certificate, intercepting ? conform_tls_retrieve_callback() : nil,
                        socket ?? -1)
                }
            }
        }
        errno = 0
        let daemon = start(requestedPort, on: listeningSocket)
        guard let daemon else {
            let reason =
                errno != 0
                ? String(cString: strerror(errno))
                : tls != nil
                    ? "libmicrohttpd refused the TLS key or certificate (check that both are PEM and belong together)"
                    : "libmicrohttpd refused to start"
            retained.release()
            throw HTTPServerError(
                .cannotListen,
                "cannot listen on \(host):\(requestedPort): \(reason); choose another port or pass 0 to pick a free one"
            )
        }
        let port = conform_mhd_bound_port(daemon)
        var joined: [(any IOLoop, JoinedDaemon)] = []
        if joining {
            // The other daemons accept on copies of the first one's listening socket: one port, no SO_REUSEPORT.
            var daemons = [daemon]
            let listening = conform_mhd_listen_fd(daemon)
            for _ in loops.dropFirst() {
                let copy = listening < 0 ? -1 : dup(listening)
                guard copy >= 0, let another = start(port, on: copy) else {
                    let reason = String(cString: strerror(errno))
                    if copy >= 0 { close(copy) }
                    for started in daemons { MHD_stop_daemon(started) }
                    retained.release()
                    throw HTTPServerError(
                        .cannotListen, "cannot serve \(host):\(port) on \(loops.count) event loops: \(reason)")
                }
                daemons.append(another)
            }
            joined = zip(loops, daemons).map { loop, started in
                (loop, JoinedDaemon(DaemonPointer(pointer: started), descriptor: conform_mhd_epoll_fd(started)))
            }
            context.deferredAnswers.setWakers(
                joined.map { loop, started in
                    (
                        daemon: Int(bitPattern: started.pointer),
                        wake: { [weak loop, weak started] in
                            if let loop, let started { loop.wake(started) }
                        }
                    )
                })
            for (loop, started) in joined { loop.attach(started) }
        }
        return RunningDaemon(
            daemon: DaemonPointer(pointer: daemon), context: retained, port: port,
            sweeper: context.watch.startSweeping(), joined: joined)
    }
}

/// A running libmicrohttpd daemon, the context it holds and the timer that sweeps slow connections.
private struct RunningDaemon: @unchecked Sendable {
    let daemon: DaemonPointer
    let context: Unmanaged<ServerContext>
    let port: UInt16
    let sweeper: DispatchSourceTimer
    /// With event loops, every daemon (the first is ``daemon``) and the loop that serves it.
    var joined: [(any IOLoop, JoinedDaemon)] = []
}

/// The daemon handle; libmicrohttpd's daemon functions are thread-safe.
struct DaemonPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}
