/// Runs exchanges of different flows concurrently and those of one flow in order, with a bound on work in flight.
///
/// Exchanges of barrier flows (backend calls about no device) wait for everything before them and hold back
/// everything after them, because they act on persons that several devices share.
actor FlowScheduler<Item: Sendable> {
    private var pending: [String: [Item]] = [:]
    private var inFlight = 0
    private var capacityWaiters: [CheckedContinuation<Void, Never>] = []
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private let limit: Int
    private let work: @Sendable (Item) async -> Void

    init(limit: Int, work: @escaping @Sendable (Item) async -> Void) {
        self.limit = max(limit, 1)
        self.work = work
    }

    /// Queues `item` on `flow`, suspending while too much work is in flight.
    func submit(_ item: Item, flow: String) async {
        while inFlight >= limit {
            await withCheckedContinuation { capacityWaiters.append($0) }
        }
        inFlight += 1
        if pending[flow] != nil {
            pending[flow]!.append(item)
            return
        }
        pending[flow] = []
        let work = self.work
        Task {
            var next: Item? = item
            while let current = next {
                await work(current)
                next = await self.finished(flow: flow)
            }
        }
    }

    /// Runs `item` alone: after all queued work, before any later work.
    func runAlone(_ item: Item) async {
        await waitUntilIdle()
        inFlight += 1
        await work(item)
        _ = finishedAlone()
    }

    /// Returns once nothing is queued or running.
    func waitUntilIdle() async {
        while inFlight > 0 {
            await withCheckedContinuation { idleWaiters.append($0) }
        }
    }

    private func finishedAlone() -> Bool {
        release()
        return true
    }

    private func finished(flow: String) -> Item? {
        release()
        guard var queue = pending[flow], !queue.isEmpty else {
            pending[flow] = nil
            return nil
        }
        let next = queue.removeFirst()
        pending[flow] = queue
        return next
    }

    private func release() {
        inFlight -= 1
        if !capacityWaiters.isEmpty { capacityWaiters.removeFirst().resume() }
        if inFlight == 0 {
            let waiters = idleWaiters
            idleWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }
}
