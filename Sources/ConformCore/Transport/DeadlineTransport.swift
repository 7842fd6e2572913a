import Synchronization

/// Ends every exchange within one deadline, whatever the inner transport does: a transport that enforces timeouts
/// gets the deadline as the request's timeout (or the request's own, when shorter); for any other, the exchange is
/// abandoned (and its task cancelled) when the deadline passes, counted from when the exchange starts running, and
/// the caller gets ``TransportError/Kind/timeout``.
///
/// The runner, the replayer, the differential and the recording proxy send through it; the deadlines of every
/// exchange under way are watched by one shared ``DeadlineWatch``, not a sleeping task each.
public struct DeadlineTransport: TransportDecorator {
    public let inner: any Transport
    /// The longest one exchange may take.
    public let deadline: Duration

    public init(inner: any Transport, deadline: Duration) {
        self.inner = inner
        self.deadline = deadline
    }

    public var enforcesTimeout: Bool { true }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var bounded = request
        bounded.timeout = min(request.timeout ?? deadline, deadline)
        let inner = self.inner
        if inner.enforcesTimeout { return try await inner.send(bounded) }
        let limit = bounded.timeout ?? deadline
        let outgoing = bounded
        let slot = ContinuationSlot()
        return try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<HTTPResponse, any Error>) in
            slot.set(continuation)
            let url = request.url
            slot.exchange = Task(executorPreference: inner.preferredTaskExecutor) {
                // The deadline counts from when the exchange starts, not from when its task was queued: time spent
                // waiting for a thread (a loaded machine, other runs in the same process) is the harness's, never
                // the implementation's.
                let timer = DeadlineWatch.shared.add(deadline: .now + limit + DeadlineWatch.grace) {
                    let error = TransportError(.timeout, "no response within \(limit) from \(url)")
                    if slot.resume(with: .failure(error)) { slot.cancelExchange() }
                }
                do {
                    slot.resume(with: .success(try await inner.send(outgoing)))
                } catch {
                    slot.resume(with: .failure(error))
                }
                DeadlineWatch.shared.remove(timer)
            }
        }
    }
}

/// A continuation resumed exactly once, by whichever of the exchange and its deadline comes first.
final class ContinuationSlot: Sendable {
    private let state = Mutex<CheckedContinuation<HTTPResponse, any Error>?>(nil)
    private let work = Mutex<Task<Void, Never>?>(nil)

    /// The task running the exchange, cancelled when the deadline wins.
    var exchange: Task<Void, Never>? {
        get { work.withLock { $0 } }
        set { work.withLock { $0 = newValue } }
    }

    func cancelExchange() { exchange?.cancel() }

    func set(_ continuation: CheckedContinuation<HTTPResponse, any Error>) { state.withLock { $0 = continuation } }

    @discardableResult
    func resume(with result: Result<HTTPResponse, any Error>) -> Bool {
        guard let continuation = state.withLock({ $0.take() }) else { return false }
        continuation.resume(with: result)
        return true
    }
}
