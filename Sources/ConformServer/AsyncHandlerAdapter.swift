import ConformCore
import Dispatch
import Synchronization

/// Turns an async closure into an ``HTTPHandler``: a server answers with it later (``DeferredHTTPHandler``), its
/// connection suspended meanwhile, so a request waiting on the closure holds no server thread; ``handle(_:)``
/// blocks the calling thread until the closure finishes, for callers that need an answer at once.
///
/// The closure runs on ``executor``, by default ``HandlerExecutor``, never on the threads Swift concurrency shares:
/// a caller that blocks those (``HTTPServer/stop()`` waits for requests in flight) cannot keep a request from
/// finishing.
public struct AsyncHandlerAdapter: DeferredHTTPHandler {
    public let body: @Sendable (HTTPRequest) async -> HTTPResponse
    /// The envelope of the server's own refusals: the one of the protocol `body` speaks.
    public let errorEnvelope: ErrorEnvelope
    /// Where `body` starts. A handler that mostly waits on one transport starts on the transport's own thread
    /// (``Transport/preferredTaskExecutor``): the request then goes from the server's thread to the transport's and
    /// its answer straight back, without passing through a thread of ``HandlerExecutor`` on each way.
    public let executor: any TaskExecutor

    public init(
        errorEnvelope: ErrorEnvelope = .neutral, executor: (any TaskExecutor)? = nil,
        _ body: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) {
        self.errorEnvelope = errorEnvelope
        self.executor = executor ?? HandlerExecutor.shared
        self.body = body
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<HTTPResponse?>(nil)
        let body = self.body
        Task.detached(executorPreference: executor) {
            let response = await body(request)
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } ?? .empty(500)
    }

    public func begin(_ request: HTTPRequest, answer: @escaping @Sendable (HTTPResponse) -> Void) {
        let body = self.body
        Task.detached(executorPreference: executor) { answer(await body(request)) }
    }
}

/// Runs the tasks of ``AsyncHandlerAdapter`` on Dispatch's threads, apart from Swift concurrency's shared pool; also
/// where a handler started on an I/O thread moves work that would hold that thread too long (a large exchange's
/// recording).
public final class HandlerExecutor: TaskExecutor {
    public static let shared = HandlerExecutor()
    private let queue = DispatchQueue(label: "conform.server.handlers", attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
