/// The one seam between Conform and an implementation: the runner, replayer, differential and recording proxy send
/// through it and cannot tell transports apart.
///
/// ``InProcessTransport`` (here) drives any ``HTTPHandler``; `CurlTransport` (`ConformCurl`) speaks HTTP;
/// `ExecTransport` (`ConformTransports`) drives an adapter program. `RebasedTransport` and `RecordingTransport`
/// (`ConformTransports`) decorate any of them.
public protocol Transport: Sendable {
    /// Sends one request and returns the response, or throws a ``TransportError`` when there is none.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// Whether `send` itself gives up after `request.timeout`; when it does not, callers add their own deadline.
    var enforcesTimeout: Bool { get }

    /// The executor on which callers best run the tasks that send through this transport (the thread that does the
    /// I/O, so an exchange needs no thread switch), or `nil` when any executor does as well.
    var preferredTaskExecutor: (any TaskExecutor)? { get }

    /// The event loops the transport does its I/O on, which a server may join (``IOLoop``), or none.
    var ioLoops: [any IOLoop] { get }
}

extension Transport {
    public var enforcesTimeout: Bool { false }
    public var preferredTaskExecutor: (any TaskExecutor)? { nil }
    public var ioLoops: [any IOLoop] { [] }
}

/// Something that answers HTTP requests synchronously: the reference implementation, a proxy, a test double.
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest) -> HTTPResponse

    /// The envelope the handler's refusals are written in: its protocol's (``ProtocolProfile/errorEnvelope``).
    var errorEnvelope: ErrorEnvelope { get }

    /// The answer to a request the server refuses before `handle` sees it (malformed framing, too large):
    /// `status` with a stable `code` and a `message` saying what to fix.
    func refusal(status: HTTPStatus, code: String, message: String) -> HTTPResponse
}

extension HTTPHandler {
    /// A handler that names no protocol refuses in the neutral envelope.
    public var errorEnvelope: ErrorEnvelope { .neutral }

    /// `code` and `message` in the handler's ``errorEnvelope``; the connection closes after it.
    public func refusal(status: HTTPStatus, code: String, message: String) -> HTTPResponse {
        var response = errorEnvelope.response(status, code: code, text: message)
        response.headerFields["Connection"] = "close"
        return response
    }
}

/// Drives an ``HTTPHandler`` without sockets.
public struct InProcessTransport: Transport {
    public let handler: any HTTPHandler

    public init(_ handler: any HTTPHandler) { self.handler = handler }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        handler.handle(request)
    }
}

/// How much of a response a transport keeps: bodies beyond it fail the exchange instead of filling memory.
public enum ResponseLimits {
    /// 64 MiB: far beyond any response of the protocol, small enough for many in flight.
    public static let defaultMaxBodyBytes = 64 * 1024 * 1024
    /// 1 MiB of response headers.
    public static let maxHeaderBytes = 1024 * 1024
    /// What `--max-body` accepts: 1 KiB to 2 GiB.
    public static let maxBodyRange = 1024...(2 * 1024 * 1024 * 1024)
}

/// Why an exchange produced no response.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; an open set.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let connectionRefused = Kind(rawValue: "connection refused")
        public static let timeout = Kind(rawValue: "timeout")
        public static let connectionReset = Kind(rawValue: "connection reset")
        public static let invalidResponse = Kind(rawValue: "invalid response")
        public static let unreachable = Kind(rawValue: "unreachable")
        public static let adapter = Kind(rawValue: "adapter failure")
        /// The adapter program exited, crashed, closed its stdin or stdout, or could not be started: nothing was
        /// judged.
        public static let adapterGone = Kind(rawValue: "adapter could not run")
        /// The adapter broke the line protocol (a stdout line that is no reply, an answer to an id never asked, a
        /// bad declaration): a fault of the harness, so nothing was judged.
        public static let adapterProtocol = Kind(rawValue: "adapter protocol error")
        public static let other = Kind(rawValue: "transport failure")
        /// The response body (or its headers) exceeded the transport's limit; reading stopped there.
        public static let tooLarge = Kind(rawValue: "response too large")
        /// TLS could not be set up: a certificate not trusted or not for the host, a client certificate refused or
        /// unreadable, no common protocol. Nothing was judged.
        public static let tls = Kind(rawValue: "TLS failure")
    }

    public var kind: Kind
    public var message: String
    /// What the whole run needs told once about this failure, with its fix (a TLS failure's cause: an expired
    /// certificate, the CA file in use, the names a certificate holds); ``message`` then stays short, and every
    /// exchange that fails alike refers to it.
    public var notice: String?

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// A failure whose cause and fix the run tells once (``notice``), `message` staying short.
    public init(_ kind: Kind, _ message: String, notice: String) {
        self.init(kind, message)
        self.notice = notice
    }

    public var description: String { "\(kind.rawValue): \(message)" }

    /// Whether the implementation could not be reached at all, so the step could not run (exit 2), rather than
    /// failed (exit 1).
    public var meansCannotRun: Bool {
        kind == .connectionRefused || kind == .unreachable || kind == .adapterGone || kind == .adapterProtocol
            || kind == .tls
    }
}
