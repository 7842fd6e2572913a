import ConformCore
import Dispatch
import Synchronization

/// Bounds that keep a recording proxy answering when its upstream is slow or never answers.
///
/// At most ``maxInFlight`` requests are forwarded at once; further ones wait in a first-come queue of at most
/// ``maxQueued`` for at most ``queueTimeout`` and are answered 503 beyond either bound. Every forwarded exchange
/// ends within ``requestDeadline`` (504 after it), whatever the upstream transport does.
public struct ProxyLimits: Sendable, Hashable {
    /// Requests forwarded upstream at once.
    public var maxInFlight: Int
    /// Requests waiting for a turn; one more is answered 503 at once.
    public var maxQueued: Int
    /// The longest a request waits for its turn before it is answered 503.
    public var queueTimeout: Duration
    /// The longest one forwarded exchange may take before it is answered 504.
    public var requestDeadline: Duration

    public init(
        maxInFlight: Int = 64, maxQueued: Int = 512, queueTimeout: Duration = .seconds(10),
        requestDeadline: Duration = .seconds(60)
    ) {
        self.maxInFlight = max(1, maxInFlight)
        self.maxQueued = max(0, maxQueued)
        self.queueTimeout = max(.milliseconds(1), queueTimeout)
        self.requestDeadline = max(.milliseconds(1), requestDeadline)
    }

    /// 64 requests forwarded at once, 512 waiting for at most 10 s, 60 s for one exchange.
    public static let `default` = ProxyLimits()
}

/// Admits a bounded number of requests at once, the others in arrival order, each waiting a bounded time.
final class AdmissionGate: Sendable {
    /// Where the queue timeouts of every gate expire.
    private static let timers = DispatchQueue(label: "conform.admission-timeouts")

    /// Why a request was not admitted.
    enum Refusal: Error, Equatable {
        case queueFull
        case waitedTooLong
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var running = 0
        var waiting: [Waiter] = []
        var head = 0
        var nextID: UInt64 = 0
        var queued: Int { waiting.count - head }

        /// Drops the served prefix of the queue once it is the larger part, so the array stays in proportion.
        mutating func compact() {
            if head > 32 && head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
        }
    }

    private let state = Mutex(State())
    let limits: ProxyLimits

    init(limits: ProxyLimits) { self.limits = limits }

    /// Requests forwarded now, and requests waiting for a turn (for tests and progress).
    var load: (forwarding: Int, waiting: Int) { state.withLock { ($0.running, $0.queued) } }

    /// Runs `body` once admitted; throws ``Refusal`` when the queue is full or the wait passes the queue timeout.
    func admitted<R: Sendable>(_ body: () async -> R) async throws(Refusal) -> R {
        try await enter()
        defer { leave() }
        return await body()
    }

    private func enter() async throws(Refusal) {
        enum Entry {
            case now
            case full
            case wait(UInt64)
        }
        let entry: Entry = state.withLock { state in
            if state.running < limits.maxInFlight && state.queued == 0 {
                state.running += 1
                return .now
            }
            if state.queued >= limits.maxQueued { return .full }
            state.nextID += 1
            return .wait(state.nextID)
        }
        guard case .wait(let id) = entry else {
            if case .full = entry { throw .queueFull }
            return
        }
        let timeout = limits.queueTimeout
        let admitted = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let startNow = state.withLock { state -> Bool in
                // A turn may have come free between the check above and here.
                if state.running < limits.maxInFlight && state.queued == 0 {
                    state.running += 1
                    return true
                }
                state.waiting.append(Waiter(id: id, continuation: continuation))
                return false
            }
            if startNow {
                continuation.resume(returning: true)
                return
            }
            // Set once the waiter is queued, so an early expiry always finds it (and does nothing once the waiter has
            // its turn); on a Dispatch queue of its own, not on the shared threads, so a wait ends on time even while
            // every shared thread is busy, and so before any exchange deadline that is due later.
            Self.timers.asyncAfter(deadline: .now() + .milliseconds(Int(timeout / .milliseconds(1)))) {
                self.expire(id)
            }
        }
        if !admitted { throw .waitedTooLong }
    }

    /// Gives the turn to the longest waiting request, or frees it.
    private func leave() {
        let next: Waiter? = state.withLock { state in
            if state.head < state.waiting.count {
                let waiter = state.waiting[state.head]
                state.head += 1
                state.compact()
                return waiter
            }
            state.running -= 1
            return nil
        }
        next?.continuation.resume(returning: true)
    }

    /// Sends the waiter `id` away if it is still waiting.
    private func expire(_ id: UInt64) {
        let expired: Waiter? = state.withLock { state -> Waiter? in
            guard let index = state.waiting[state.head...].firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = state.waiting.remove(at: index)
            state.compact()
            return waiter
        }
        expired?.continuation.resume(returning: false)
    }
}
