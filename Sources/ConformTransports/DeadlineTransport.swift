import ConformCore
import Synchronization

/// Ends every exchange within one deadline, whatever the inner transport does: a transport that enforces timeouts
/// gets the deadline as the request's timeout; for any other, the exchange is abandoned (and its task cancelled)
/// when the deadline passes, and the caller gets ``TransportError/Kind/timeout``.
public struct DeadlineTransport: Transport {
    public let inner: any Transport
    /// The longest one exchange may take.
    public let deadline: Duration

    public init(inner: any Transport, deadline: Duration) {
        self.inner = inner
        self.deadline = deadline
    }

    public var enforcesTimeout: Bool { true }
    public var preferredTaskExecutor: (any TaskExecutor)? { inner.preferredTaskExecutor }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var copy = request
        copy.timeout = min(request.timeout ?? deadline, deadline)
        let bounded = copy
        let inner = self.inner
        if inner.enforcesTimeout { return try await inner.send(bounded) }
        let limit = bounded.timeout ?? deadline
        let race = Race()
        return try await withCheckedThrowingContinuation { continuation in
            race.set(continuation)
            let exchange = Task {
                do {
                    race.finish(.success(try await inner.send(bounded)))
                } catch {
                    race.finish(.failure(error))
                }
            }
            let timer = Task {
                try? await Task.sleep(for: limit)
                if Task.isCancelled { return }
                race.finish(.failure(TransportError(.timeout, "no response within \(limit) from \(request.url)")))
            }
            race.add([exchange, timer])
        }
    }
}

/// An exchange and its timer: whichever ends first resumes the caller once and cancels the other.
private final class Race: Sendable {
    private struct State {
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        var tasks: [Task<Void, Never>] = []
        var finished = false
    }

    private let state = Mutex(State())

    func set(_ continuation: CheckedContinuation<HTTPResponse, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Keeps the tasks to cancel; cancels them at once when the race is already over.
    func add(_ tasks: [Task<Void, Never>]) {
        let over = state.withLock { state in
            state.tasks = tasks
            return state.finished
        }
        if over { for task in tasks { task.cancel() } }
    }

    func finish(_ result: Result<HTTPResponse, any Error>) {
        let (continuation, tasks) = state.withLock { state in
            let continuation = state.continuation.take()
            if continuation != nil { state.finished = true }
            return (continuation, state.tasks)
        }
        guard let continuation else { return }
        continuation.resume(with: result)
        for task in tasks { task.cancel() }
    }
}
