/// A transport that wraps another and changes only what it says: by default it sends through ``inner``, enforces
/// a timeout exactly when ``inner`` does and prefers ``inner``'s executor, so a decorator never forgets to pass
/// on what the transport it wraps declares.
///
/// ``RebasedTransport`` (another origin), ``DeadlineTransport`` (one deadline per exchange) and the recording
/// decorators conform; what a caller wants of every exchange is a chain of them around any transport.
public protocol TransportDecorator: Transport {
    /// The transport this one sends through.
    var inner: any Transport { get }
}

extension TransportDecorator {
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await inner.send(request) }
    public var enforcesTimeout: Bool { inner.enforcesTimeout }
    public var preferredTaskExecutor: (any TaskExecutor)? { inner.preferredTaskExecutor }
    public var ioLoops: [any IOLoop] { inner.ioLoops }
}

extension Transport {
    /// Runs `body` with its tasks preferring this transport's executor (its I/O thread, so an exchange needs no
    /// thread switch), or wherever they run when it names none: how the runner, the replayer and the differential
    /// send. Work that blocks (writing a file) belongs elsewhere: it would stall every exchange on that thread.
    public func preferringExecutor<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await withTaskExecutorPreference(preferredTaskExecutor, operation: body)
    }
}
