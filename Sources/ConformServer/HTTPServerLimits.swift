/// Bounds that keep a served implementation safe from hostile or broken clients.
public struct HTTPServerLimits: Sendable, Hashable {
    /// The largest request body accepted; larger bodies are answered with 413.
    public var maxBodyBytes: Int
    /// Memory per connection for the request line and headers; requests that do not fit are refused with 431.
    public var maxHeaderBytes: Int
    /// Seconds a connection may stay idle (or a slow client may stall) before it is closed.
    public var connectionTimeoutSeconds: Int
    /// Seconds a connection may take to send a complete request head (request line and headers), counted from
    /// when it opens or its previous request was answered; a slow-drip client is disconnected after it. An idle
    /// keep-alive connection closes after it too.
    public var headerTimeoutSeconds: Int
    /// The most header fields one request may carry; more are refused with 431.
    public var maxHeaderFields: Int
    /// How many connections may be open at once; further clients are refused.
    public var maxConnections: Int
    /// Worker threads serving connections (epoll in each); ignored with ``threadPerConnection``.
    public var threads: Int
    /// Serve each connection on its own thread instead of a pool, so a handler that blocks (a slow or delayed
    /// implementation) holds up only its own client; at most ``maxConnections`` threads.
    public var threadPerConnection: Bool

    public init(
        maxBodyBytes: Int = 8 * 1024 * 1024, maxHeaderBytes: Int = 64 * 1024, connectionTimeoutSeconds: Int = 30,
        headerTimeoutSeconds: Int = 10, maxHeaderFields: Int = 1000, maxConnections: Int = 1024, threads: Int = 4,
        threadPerConnection: Bool = false
    ) {
        self.maxHeaderFields = maxHeaderFields
        self.headerTimeoutSeconds = headerTimeoutSeconds
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.maxConnections = maxConnections
        self.threads = threads
        self.threadPerConnection = threadPerConnection
    }

    /// 8 MB bodies, 64 KB and 1000 fields of headers, 30 s idle timeout, 10 s for a request head, 1024 connections, 4 threads.
    public static let `default` = HTTPServerLimits()
}
