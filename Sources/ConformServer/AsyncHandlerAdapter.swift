import ConformCore
import Dispatch
import Synchronization

/// Turns an async closure into an ``HTTPHandler`` by blocking the calling server thread until the closure finishes.
///
/// Each request in flight holds one server thread, so size ``HTTPServerLimits/threads`` for the expected concurrency.
/// The closure runs on ``HandlerExecutor``, not on the threads Swift concurrency shares: a caller that blocks those
/// (``HTTPServer/stop()`` waits for requests in flight) cannot keep a request from finishing.
public struct AsyncHandlerAdapter: HTTPHandler {
    public let body: @Sendable (HTTPRequest) async -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) { self.body = body }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<HTTPResponse?>(nil)
        let body = self.body
        Task.detached(executorPreference: HandlerExecutor.shared) {
            let response = await body(request)
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } ?? .empty(500)
    }
}

/// Runs the tasks of ``AsyncHandlerAdapter`` on Dispatch's threads, apart from Swift concurrency's shared pool.
final class HandlerExecutor: TaskExecutor {
    static let shared = HandlerExecutor()
    private let queue = DispatchQueue(label: "conform.server.handlers", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
