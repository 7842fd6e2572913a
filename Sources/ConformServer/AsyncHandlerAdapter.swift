import ConformCore
import Dispatch
import Synchronization

/// Turns an async closure into an ``HTTPHandler`` by blocking the calling server thread until the closure finishes.
///
/// Each request in flight holds one server thread, so size ``HTTPServerLimits/threads`` for the expected concurrency.
public struct AsyncHandlerAdapter: HTTPHandler {
    public let body: @Sendable (HTTPRequest) async -> HTTPResponse
    /// The envelope of the server's own refusals: the one of the protocol `body` speaks.
    public let errorEnvelope: ErrorEnvelope

    public init(
        errorEnvelope: ErrorEnvelope = .neutral, _ body: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) {
        self.errorEnvelope = errorEnvelope
        self.body = body
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<HTTPResponse?>(nil)
        let body = self.body
        Task.detached {
            let response = await body(request)
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } ?? .empty(500)
    }
}
