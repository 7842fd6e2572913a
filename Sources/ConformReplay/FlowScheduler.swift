import Synchronization

/// Runs exchanges of different flows concurrently and those of one flow in order, with a bound on work in flight.
///
/// Exchanges of barrier flows (backend calls about no device) wait for everything before them and hold back
/// everything after them, because they act on persons that several devices share.
///
/// Each flow's exchanges run one after another in a worker task that prefers `executor` (the transport's I/O thread),
/// and the bookkeeping between them is a lock, not an actor: an exchange that finishes takes its flow's next one
/// on the thread it finished on, so a replay's exchanges change thread only where the reader hands work over.
/// A worker whose flow has nothing queued waits for the next flow that starts instead of ending, so a replay makes
/// a task per flow running at its busiest moment, not one per exchange; ``close()`` ends the waiting workers.
/// The reader, once the bound is reached, is woken when the work in flight has fallen to half of it, not for
/// every exchange that ends.
final class FlowScheduler<Item: Sendable>: Sendable {
    private struct State {
        /// The exchanges queued behind the one running, by flow; a flow is present while its task runs.
        var pending: [String: FlowQueue] = [:]
        var inFlight = 0
        var capacityWaiter: CheckedContinuation<Void, Never>?
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Workers waiting for a flow to start, the one that waited least last.
        var parked: [CheckedContinuation<Assignment?, Never>] = []
        /// Workers whose flow ended and that are on their way to wait: a flow that starts meanwhile is left for them
        /// in `ready` rather than given a worker of its own.
        var leaving = 0
        var ready: [Assignment] = []
        /// How many workers were made, and how many have not ended (tests' measures of reuse and of ``close()``).
        var made = 0
        var alive = 0
        var closed = false
    }

    /// A flow a worker takes on, with the flow's first exchange.
    private struct Assignment: Sendable {
        let flow: String
        let first: Item
    }

    /// What a submission does once it is counted.
    private enum Start {
        case queued
        case handed(CheckedContinuation<Assignment?, Never>)
        case newWorker
    }

    /// What a worker does once an exchange of its flow ends.
    private enum Next {
        case item(Item)
        case flow(Assignment)
        case wait
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
        let start = state.withLock { state -> Start in
            state.inFlight += 1
            if state.pending[flow] != nil {
                state.pending[flow]!.items.append(item)
                return .queued
            }
            state.pending[flow] = FlowQueue()
            if let worker = state.parked.popLast() { return .handed(worker) }
            if state.ready.count < state.leaving {
                state.ready.append(Assignment(flow: flow, first: item))
                return .queued
            }
            state.made += 1
            state.alive += 1
            return .newWorker
        }
        switch start {
        case .queued: return
        case .handed(let worker): worker.resume(returning: Assignment(flow: flow, first: item))
        case .newWorker:
            // Workers running, leaving and waiting are never more than the flows in flight at the busiest moment.
            Task(executorPreference: executor) { await self.serve(Assignment(flow: flow, first: item)) }
        }
    }

    /// How many worker tasks were made so far, how many of them have not ended, and how many wait for a flow.
    var workers: (made: Int, alive: Int, waiting: Int) { state.withLock { ($0.made, $0.alive, $0.parked.count) } }

    /// Lets the workers waiting for a flow end, and those that run out of work later end then. Work submitted after
    /// it still runs.
    func close() {
        let parked = state.withLock { state in
            state.closed = true
            defer { state.parked = [] }
            return state.parked
        }
        for worker in parked { worker.resume(returning: nil) }
    }

    /// A worker: runs each flow it is given to its end, then takes one that started meanwhile or waits for one.
    private func serve(_ assignment: Assignment) async {
        let work = self.work
        var (flow, current) = (assignment.flow, assignment.first)
        while true {
            await work(current)
            switch finished(flow: flow) {
            case .item(let item): current = item
            case .flow(let next): (flow, current) = (next.flow, next.first)
            case .wait:
                guard let next = await nextFlow() else {
                    state.withLock { $0.alive -= 1 }
                    return
                }
                (flow, current) = (next.flow, next.first)
            }
        }
    }

    /// The flow a leaving worker takes on: one left for it in `ready`, or the next to start; `nil` once closed.
    private func nextFlow() async -> Assignment? {
        await withCheckedContinuation { (worker: CheckedContinuation<Assignment?, Never>) in
            // `ready` never holds more flows than workers are leaving, so each one left there is taken.
            let (ready, closed) = state.withLock { state -> (Assignment?, Bool) in
                state.leaving -= 1
                if !state.ready.isEmpty { return (state.ready.removeFirst(), false) }
                if !state.closed { state.parked.append(worker) }
                return (nil, state.closed)
            }
            if ready != nil || closed { worker.resume(returning: ready) }
        }
    }

    /// Runs `item` alone: after all queued work, before any later work.
    func runAlone(_ item: Item) async {
        await waitUntilIdle()
        state.withLock { $0.inFlight += 1 }
        // On the caller's task, preferring the executor the flows run on, as they do.
        await withTaskExecutorPreference(executor) { await work(item) }
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

    /// Ends one exchange of `flow`: hands back the flow's next one, or a flow that started and waits for a worker,
    /// or, with neither, counts the worker as leaving to wait.
    private func finished(flow: String) -> Next {
        let (next, woken) = state.withLock { state -> (Next, [CheckedContinuation<Void, Never>]) in
            let woken = Self.release(&state, resumeBelow: resumeBelow)
            if let item = state.pending[flow]?.next() { return (.item(item), woken) }
            state.pending[flow] = nil
            if !state.ready.isEmpty { return (.flow(state.ready.removeFirst()), woken) }
            state.leaving += 1
            return (.wait, woken)
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
