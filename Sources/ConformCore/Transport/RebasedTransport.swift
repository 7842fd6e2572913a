/// Sends every request to one origin, keeping its path and query: recorded traffic played against another host.
///
/// The one way Conform sends to another origin (`diff`, `replay`, the recording proxy, tests against a server):
/// built on ``HTTPRequest/rebased(onto:)``, so nothing it relays can name another host.
public struct RebasedTransport: TransportDecorator {
    /// The origin (`http://host:port`, optionally with a base path) every request goes to.
    public let base: String
    /// The `Host` header every rebased request carries; `nil` lets the inner transport set the origin's. A
    /// recorded `Host` is never sent to another origin.
    public let hostHeader: String?
    /// The transport that sends the rebased request.
    public let inner: any Transport

    /// ``base``, checked once.
    private let checkedBase: HTTPRequest.Base

    /// Creates a decorator that rebases every request onto `base` before `inner` sends it.
    public init(base: String, hostHeader: String? = nil, inner: any Transport) {
        self.base = base
        self.hostHeader = hostHeader
        self.inner = inner
        checkedBase = HTTPRequest.Base(base)
    }

    /// `request` as this transport sends it: onto ``base``, with ``hostHeader`` when one is set. A URL that is
    /// neither absolute nor origin-form, or would leave ``base``'s host, is refused with ``RequestTargetError``.
    public func rebase(_ request: HTTPRequest) throws(RequestTargetError) -> HTTPRequest {
        var rebased = try request.rebased(onto: checkedBase)
        if let hostHeader { rebased.headerFields["Host"] = hostHeader }
        return rebased
    }

    /// Sends `request` to ``base``; a refused URL (see ``rebase(_:)``) throws and never reaches ``inner``.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await inner.send(try rebase(request))
    }
}
