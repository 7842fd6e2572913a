import ConformCore

/// Bounds that keep a served implementation safe from hostile or broken clients.
public struct HTTPServerLimits: Sendable, Hashable {
    /// The largest request body accepted; larger bodies are answered with 413.
    public var maxBodyBytes: Int
    /// The largest request head (request line and header fields); larger heads are refused with 431. 16 KB by
    /// default, Node.js's default and within nginx's (8 KB a line, four lines).
    public var maxHeaderBytes: Int
    /// Seconds a connection may stay idle (or a slow client may stall) before it is closed.
    public var connectionTimeoutSeconds: Int
    /// Seconds a connection may take to send a complete request head (request line and headers), counted from
    /// when it opens or its previous request was answered; a slow-drip client is disconnected after it. An idle
    /// keep-alive connection closes after it too.
    public var headerTimeoutSeconds: Int
    /// Seconds a connection may take to send a whole request, head and body, counted like
    /// ``headerTimeoutSeconds``; a client still sending after it is disconnected.
    public var requestTimeoutSeconds: Int
    /// The slowest average rate, in bytes a second, at which a request body may arrive once its head is in (after a
    /// grace of ``bodyGraceSeconds``); a slower client is disconnected. 0 turns the check off.
    public var minBodyBytesPerSecond: Int
    /// Seconds a body may take before ``minBodyBytesPerSecond`` applies, so a client pausing after the head (for
    /// `Expect: 100-continue`) is not cut.
    public var bodyGraceSeconds: Int
    /// The most header fields one request may carry; more are refused with 431. 100 by default (Apache's
    /// `LimitRequestFields`); at most `HTTPFields.maxCount`, the cap every reader of messages shares.
    public var maxHeaderFields: Int
    /// The largest response head (status line and header fields) the server sends; a handler's answer with a larger
    /// head cannot be sent (``fitsResponseHead(_:)``): a proxy answers 502 instead.
    public var maxResponseHeadBytes: Int
    /// How many connections may be open at once; further clients are refused.
    public var maxConnections: Int
    /// How many connections may wait on their client (for a request head or body, or idle between requests)
    /// before a newly opened one closes the one that has waited longest, so there is always room for new clients;
    /// `nil` means nine tenths of ``maxConnections``. Connections whose request is being handled are never closed.
    public var maxWaitingConnections: Int?
    /// Worker threads serving connections (epoll in each, poll() with TLS); ignored with ``threadPerConnection``.
    public var threads: Int
    /// Serve each connection on its own thread instead of a pool, so a handler that blocks (a slow or delayed
    /// implementation) holds up only its own client; at most ``maxConnections`` threads.
    public var threadPerConnection: Bool

    public init(
        maxBodyBytes: Int = 8 * 1024 * 1024, maxHeaderBytes: Int = 16 * 1024, connectionTimeoutSeconds: Int = 30,
        headerTimeoutSeconds: Int = 10, requestTimeoutSeconds: Int = 60, minBodyBytesPerSecond: Int = 1024,
        bodyGraceSeconds: Int = 2, maxHeaderFields: Int = 100, maxResponseHeadBytes: Int = 16 * 1024,
        maxConnections: Int = 1024, maxWaitingConnections: Int? = nil, threads: Int = 4,
        threadPerConnection: Bool = false
    ) {
        self.maxResponseHeadBytes = maxResponseHeadBytes
        self.headerTimeoutSeconds = headerTimeoutSeconds
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.minBodyBytesPerSecond = minBodyBytesPerSecond
        self.bodyGraceSeconds = bodyGraceSeconds
        self.maxHeaderFields = maxHeaderFields
        self.maxWaitingConnections = maxWaitingConnections
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.maxConnections = maxConnections
        self.threads = threads
        self.threadPerConnection = threadPerConnection
    }

    /// Memory each connection gets from libmicrohttpd: the request head with a quarter more (so a head over the
    /// limit still arrives whole and is refused with the handler's envelope, not the library's), its fields' entries,
    /// and the response head. The library zeroes all of it before every request on a connection, so it is sized to
    /// the limits rather than generously.
    public var connectionMemoryBytes: Int {
        maxHeaderBytes + maxHeaderBytes / 4 + maxHeaderFields * 64 + maxResponseHeadBytes + 4 * 1024
    }

    /// Whether `response`'s head (status line and header fields, as sent) fits ``maxResponseHeadBytes``.
    public func fitsResponseHead(_ response: HTTPResponse) -> Bool {
        var bytes = 64
        for field in response.headerFields {
            bytes += field.name.utf8.count + field.value.utf8.count + 4
            if bytes > maxResponseHeadBytes { return false }
        }
        return true
    }

    /// The number of waiting connections that makes a new one close the longest-waiting one.
    public var waitingBudget: Int { maxWaitingConnections ?? max(1, maxConnections - max(1, maxConnections / 10)) }

    /// 8 MB bodies, 16 KB and 100 fields of request headers, 16 KB of response headers, 30 s idle timeout, 10 s
    /// for a request head and 60 s for the whole request, bodies at 1 KB/s or faster after 2 s, 1024 connections of
    /// which 922 may wait on their client, 4 threads.
    public static let `default` = HTTPServerLimits()
}
