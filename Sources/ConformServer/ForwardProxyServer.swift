import ConformCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP forward proxy in front of a forwarding ``HTTPServer``: what `conform record --forward` listens with.
///
/// The acceptor reads the start of each connection without consuming it. An absolute-form plain-HTTP request goes
/// to the server as it came (the handler checks each request's host against the ``ForwardPolicy``). `CONNECT` to an
/// intercepted host gets `200`, and the connection goes to a second server that speaks TLS itself (libmicrohttpd's
/// GnuTLS) with that host's leaf (SNI must name the `CONNECT` host), so its head rules, limits and handler apply
/// unchanged and no thread is held per tunnel. Other hosts are refused (`403`) or, when the policy says so,
/// tunnelled undecrypted. Every wait is bounded: the head and the handshake by the head timeout, an upstream connect
/// by ``connectTimeout``, an idle passed-through tunnel by ``idleTimeout`` (an intercepted one is the server's
/// keep-alive connection, bounded by its limits).
public final class ForwardProxyServer: Sendable {
    public let host: String
    public let policy: ForwardPolicy
    public let limits: HTTPServerLimits
    /// How long connecting to a tunnelled host may take.
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
    private let handshakeFailures = HandshakeFailures()
    private let state = Mutex<(listener: Int32, port: UInt16, open: Set<Int32>)>((-1, 0, []))
    private let counts = Mutex((tunnels: 0, refused: 0))

    /// A stopped proxy; `identity` gives the leaf (PEM) presented for an intercepted host, `nil` if it has none.
    public init(
        handler: any HTTPHandler, host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPServerLimits = .default,
        policy: ForwardPolicy, identity: @escaping @Sendable (String) -> TLSIdentity?,
        connectTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(120),
        log: HTTPServer.LogHandler? = nil
    ) throws {
        guard let address = ListenAddress(host: host) else {
            throw HTTPServerError(
                .invalidHost,
                "'\(host)' is not an IPv4 or IPv6 address; use a numeric address such as 127.0.0.1, ::1 or 0.0.0.0")
        }
        var served = limits
        served.threadPerConnection = true
        self.server = try HTTPServer(handler: handler, host: host, limits: served, log: log, forwarding: true)
        self.interceptor = try HTTPServer(
            handler: handler, host: host, limits: limits, log: log, forwarding: true, intercepting: true)
        self.host = host
        self.address = address
        self.requestedPort = port
        self.limits = limits
        self.policy = policy
        self.handler = handler
        self.credentials = ForwardCredentials(identity: identity)
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
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
    public var refusedCount: Int { counts.withLock { $0.refused } }
    public var failedHandshakeCount: Int { handshakeFailures.value }

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
        let bound = address.withSockaddr(port: requestedPort) { address in
            bind(
                listener, address,
                socklen_t(family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size))
        }
        guard listener >= 0, bound == 0, listen(listener, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            if listener >= 0 { close(listener) }
            server.stop()
            interceptor.stop()
            throw HTTPServerError(
                .cannotListen,
                "cannot listen on \(host):\(requestedPort): \(reason); choose another port or pass 0 to pick a free one"
            )
        }
        var storage = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        // sin_port and sin6_port sit at the same offset.
        let port = UInt16(bigEndian: storage.sin6_port)
        state.withLock { $0 = (listener, port, []) }
        let thread = Thread { [self] in acceptLoop(listener) }
        thread.name = "conform-forward-accept"
        thread.start()
    }

    /// Stops accepting, cuts every tunnel and stops the server; safe to call twice.
    public func stop() {
        let (listener, open) = state.withLock { state in
            let taken = (state.listener, state.open)
            state = (-1, 0, [])
            return taken
        }
        guard listener >= 0 else { return }
        // Wakes the accept loop, which closes the socket itself: closed here, its number could be reused by another
        // socket before the loop sees the error, and the loop would accept that socket's connections.
        _ = Glibc.shutdown(listener, shutdownBoth)
        for socket in open { _ = Glibc.shutdown(socket, shutdownBoth) }
        server.stop()
        interceptor.stop()
    }

    private func acceptLoop(_ listener: Int32) {
        while true {
            let client = accept(listener, nil, nil)
            if client >= 0 { _ = fcntl(client, F_SETFD, FD_CLOEXEC) }
            if client < 0 {
                let failure = errno
                if [EINTR, ECONNABORTED, EMFILE, ENFILE].contains(failure), state.withLock({ $0.listener }) == listener
                {
                    // Out of descriptors: wait for connections to end instead of spinning.
                    if failure == EMFILE || failure == ENFILE { usleep(10_000) }
                    continue
                }
                close(listener)
                return
            }
            let admitted = state.withLock { state -> Bool in
                guard state.listener == listener, state.open.count < limits.maxConnections else { return false }
                state.open.insert(client)
                return true
            }
            guard admitted else {
                close(client)
                continue
            }
            let thread = Thread { [self] in
                // OpenSSL writes to the client with write(2): a client gone away gives EPIPE here instead of a
                // SIGPIPE that would end the process (the signal, blocked, stays with this thread and dies with it).
                var blocked = sigset_t()
                sigemptyset(&blocked)
                sigaddset(&blocked, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &blocked, nil)
                serve(client)
                _ = state.withLock { $0.open.remove(client) }
            }
            thread.name = "conform-forward"
            thread.start()
        }
    }

    /// One accepted connection, from its first line to its hand-over, tunnel or refusal.
    private func serve(_ client: Int32) {
        SocketIO.setNonBlocking(client)
        let deadline = ContinuousClock.now + .seconds(limits.headerTimeoutSeconds)
        guard let head = ForwardHead.peek(client, maxBytes: limits.maxHeaderBytes, until: deadline) else {
            close(client)
            return
        }
        guard head.isConnect else {
            // The server reads the request itself and judges each request's host; it owns the socket from here.
            let flags = fcntl(client, F_GETFL)
            _ = fcntl(client, F_SETFL, flags & ~O_NONBLOCK)
            _ = server.addConnection(client, origin: nil)
            return
        }
        guard let authority = head.connectAuthority, let port = authority.port else {
            refuse(client, 400, "BAD_REQUEST", "CONNECT needs HOST:PORT (such as api.example.com:443)", deadline)
            close(client)
            return
        }
        ForwardHead.consume(client, count: head.length)
        switch policy.connect(host: authority.host, port: port) {
        case .refuse(let reason):
            refuse(client, 403, "FORWARD_NOT_ALLOWED", reason, deadline)
            close(client)
        case .tunnel:
            tunnel(client, to: authority, port: port, deadline)
            close(client)
        case .intercept:
            intercept(client, authority: authority, port: port, deadline)
        }
    }

    /// Answers `200` and hands the connection to the intercepting server, which owns (and closes) it from then on.
    private func intercept(
        _ client: Int32, authority: ForwardAuthority, port: UInt16, _ deadline: ContinuousClock.Instant
    ) {
        guard let credential = credentials.credential(for: authority.host) else {
            refuse(client, 502, "BAD_GATEWAY", "no certificate can be made for \(authority.host)", deadline)
            close(client)
            return
        }
        guard established(client, deadline) else {
            close(client)
            return
        }
        let shown = authority.host.contains(":") ? "[\(authority.host)]" : authority.host
        let origin = "https://\(shown)" + (port == 443 ? "" : ":\(port)")
        counts.withLock { $0.tunnels += 1 }
        let interception = Interception(host: authority.host, credential: credential, failures: handshakeFailures)
        let flags = fcntl(client, F_GETFL)
        _ = fcntl(client, F_SETFL, flags & ~O_NONBLOCK)
        _ = interceptor.addConnection(client, origin: origin, interception: interception)
    }

    /// Passes bytes to another host without reading them (`--other-hosts tunnel`).
    private func tunnel(
        _ client: Int32, to authority: ForwardAuthority, port: UInt16, _ deadline: ContinuousClock.Instant
    ) {
        guard let upstream = ForwardHead.connect(host: authority.host, port: port, timeout: connectTimeout) else {
            refuse(client, 502, "BAD_GATEWAY", "cannot connect to \(authority.host):\(port)", deadline)
            return
        }
        defer { close(upstream) }
        guard established(client, deadline) else { return }
        counts.withLock { $0.tunnels += 1 }
        Pump.run(PlainEnd(client), PlainEnd(upstream), idle: idleTimeout)
    }

    private func established(_ client: Int32, _ deadline: ContinuousClock.Instant) -> Bool {
        SocketIO.writeAll(client, Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8), until: deadline)
    }

    /// Answers a `CONNECT` the proxy will not open with the handler's envelope, then the connection closes.
    private func refuse(
        _ client: Int32, _ status: Int, _ code: String, _ message: String, _ deadline: ContinuousClock.Instant
    ) {
        counts.withLock { $0.refused += 1 }
        let response = handler.refusal(status: HTTPStatus(status), code: code, message: message)
        var head = "HTTP/1.1 \(status) \(ForwardHead.reason(status))\r\n"
        for field in response.headerFields where !["content-length", "connection"].contains(field.name.lowercased()) {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        _ = SocketIO.writeAll(client, Array(head.utf8) + Array(response.body), until: deadline + .seconds(1))
    }
}

/// `SHUT_RDWR` of `<sys/socket.h>`, which Glibc's module does not export to this file in every build.
private let shutdownBoth: Int32 = 2
