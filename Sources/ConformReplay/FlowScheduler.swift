import Synchronization

/// Runs exchanges of different flows concurrently and those of one flow in order, with a bound on work in flight.
///
/// Exchanges of barrier flows (backend calls about no device) wait for everything before them and hold back
/// everything after them, because they act on persons that several devices share.
///
/// Each flow's exchanges run one after another in one task that prefers `executor` (the transport's I/O thread),
/// and the bookkeeping between them is a lock, not an actor: an exchange that finishes takes its flow's next one
/// on the thread it finished on, so a replay's exchanges change thread only where the reader hands work over.
/// The reader, once the bound is reached, is woken when the work in flight has fallen to half of it, not for
/// every exchange that ends.
final class FlowScheduler<Item: Sendable>: Sendable {
    private struct State {
        /// The exchanges queued behind the one running, by flow; a flow is present while its task runs.
        var pending: [String: FlowQueue] = [:]
        var inFlight = 0
        var capacityWaiter: CheckedContinuation<Void, Never>?
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// A flow's queue, consumed from its head without moving what is behind it.
    private struct FlowQueue {
        var items: [Item] = []
        var head = 0

        mutating func next() -> Item? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return item
        }
    }

    private let state = Mutex(State())
    private let limit: Int
    /// The work in flight below which a reader held back by the bound goes on.
    private let resumeBelow: Int
    private let executor: (any TaskExecutor)?
    private let work: @Sendable (Item) async -> Void

    /// A scheduler of at most `limit` exchanges queued or running, whose flows run on `executor` when given.
    init(limit: Int, executor: (any TaskExecutor)? = nil, work: @escaping @Sendable (Item) async -> Void) {
        self.limit = max(limit, 1)
        self.resumeBelow = max(self.limit / 2, 1)
        self.executor = executor
        self.work = work
    }

    /// How many exchanges are queued or running now.
    var inFlight: Int { state.withLock { $0.inFlight } }

    /// Queues `item` on `flow`, suspending while too much work is in flight.
    func submit(_ item: Item, flow: String) async {
        await waitForCapacity()
        let startsFlow = state.withLock { state -> Bool in
            state.inFlight += 1
            if state.pending[flow] != nil {
                state.pending[flow]!.items.append(item)
                return false
            }
            state.pending[flow] = FlowQueue()
            return true
        }
        guard startsFlow else { return }
        let work = self.work
        Task(executorPreference: executor) {
            var next: Item? = item
            while let current = next {
                await work(current)
                next = self.finished(flow: flow)
            }
        }
    }

    /// Runs `item` alone: after all queued work, before any later work.
    func runAlone(_ item: Item) async {
        await waitUntilIdle()
        state.withLock { $0.inFlight += 1 }
        await work(item)
        release()
    }

    /// Returns once nothing is queued or running.
    func waitUntilIdle() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.inFlight > 0 else { return true }
                state.idleWaiters.append(waiter)
                return false
            }
            if idle { waiter.resume() }
        }
    }

    /// Returns once fewer than `limit` exchanges are in flight (only the reader calls this, so one waits at most).
    private func waitForCapacity() async {
        guard state.withLock({ $0.inFlight >= limit }) else { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let free = state.withLock { state -> Bool in
                guard state.inFlight >= resumeBelow else { return true }
                state.capacityWaiter = waiter
                return false
            }
            if free { waiter.resume() }
        }
    }

    /// Ends one exchange of `flow` and hands back the flow's next one, if any.
    private func finished(flow: String) -> Item? {
        let (next, woken) = state.withLock { state -> (Item?, [CheckedContinuation<Void, Never>]) in
            let woken = Self.release(&state, resumeBelow: resumeBelow)
            let next = state.pending[flow]?.next()
            if next == nil { state.pending[flow] = nil }
            return (next, woken)
        }
        for waiter in woken { waiter.resume() }
        return next
    }

    private func release() {
        let woken = state.withLock { Self.release(&$0, resumeBelow: resumeBelow) }
        for waiter in woken { waiter.resume() }
    }

    /// Counts one exchange done; returns the waiters it lets go on, to be resumed outside the lock.
    private static func release(_ state: inout State, resumeBelow: Int) -> [CheckedContinuation<Void, Never>] {
        state.inFlight -= 1
        var woken: [CheckedContinuation<Void, Never>] = []
        if state.inFlight < resumeBelow, let waiter = state.capacityWaiter {
            state.capacityWaiter = nil
            woken.append(waiter)
        }
        if state.inFlight == 0 {
            woken.append(contentsOf: state.idleWaiters)
            state.idleWaiters = []
        }
        return woken
    }
}
