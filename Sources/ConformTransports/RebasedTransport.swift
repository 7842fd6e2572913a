import ConformCore

/// Sends every request to one origin, keeping its path and query: recorded traffic played against another host.
public struct RebasedTransport: Transport {
    /// The origin (`http://host:port`, optionally with a base path) every request goes to.
    public let base: String
    /// The transport that sends the rebased request.
    public let inner: any Transport

    /// Creates a decorator that rebases every request onto `base` before `inner` sends it.
    public init(base: String, inner: any Transport) {
        self.base = base
        self.inner = inner
    }

    public var enforcesTimeout: Bool { inner.enforcesTimeout }
    public var preferredTaskExecutor: (any TaskExecutor)? { inner.preferredTaskExecutor }

    /// Sends `request` to ``base``; a URL that is neither absolute nor origin-form is refused with
    /// ``RequestTargetError`` and never reaches ``inner``.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await inner.send(try request.rebased(onto: base))
    }
}
