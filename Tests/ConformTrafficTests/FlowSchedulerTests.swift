import ConformCore
import ConformTestSupport
import Dispatch
import Synchronization
import Testing

@testable import ConformReplay

/// The replay's scheduler: each flow in order, flows side by side, a bound on the work in flight, barriers that wait
/// for all before them, and flows run on the executor they are given. Work items wait on a gate the test opens, so
/// what is in flight at a moment is known, not timed.
@Suite struct FlowSchedulerTests {
    struct Item: Sendable {
        var flow: String
        var index: Int
    }

    /// What the work saw, and a gate that holds every item until the test opens it.
    final class Recorder: Sendable {
        struct Log {
            var started: [String: [Int]] = [:]
            var order: [Int] = []
            var running = 0
            var mostRunning = 0
            var runningPerFlow: [String: Int] = [:]
            var overlapsInAFlow = 0
            var offExecutor = 0
            var submitted = 0
            var open = false
            var gateWaiters: [CheckedContinuation<Void, Never>] = []
            var startWaiters: [(count: Int, waiter: CheckedContinuation<Void, Never>)] = []
        }

        let log = Mutex(Log())
        var seen: Log { log.withLock { $0 } }

        func started(_ item: Item, onExecutor: Bool) {
            let woken = log.withLock { log -> [CheckedContinuation<Void, Never>] in
                log.started[item.flow, default: []].append(item.index)
                log.order.append(item.index)
                log.running += 1
                log.mostRunning = max(log.mostRunning, log.running)
                log.runningPerFlow[item.flow, default: 0] += 1
                if log.runningPerFlow[item.flow]! > 1 { log.overlapsInAFlow += 1 }
                if !onExecutor { log.offExecutor += 1 }
                let count = log.order.count
                let due = log.startWaiters.filter { $0.count <= count }.map(\.waiter)
                log.startWaiters.removeAll { $0.count <= count }
                return due
            }
            for waiter in woken { waiter.resume() }
        }

        func ended(_ item: Item) {
            log.withLock { log in
                log.running -= 1
                log.runningPerFlow[item.flow]! -= 1
            }
        }

        /// Returns when the gate is open.
        func pass() async {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let open = log.withLock { log -> Bool in
                    if !log.open { log.gateWaiters.append(waiter) }
                    return log.open
                }
                if open { waiter.resume() }
            }
        }

        func open() {
            let waiters = log.withLock { log -> [CheckedContinuation<Void, Never>] in
                log.open = true
                defer { log.gateWaiters = [] }
                return log.gateWaiters
            }
            for waiter in waiters { waiter.resume() }
        }

        /// Returns once `count` items have started.
        func waitForStarted(_ count: Int) async {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let reached = log.withLock { log -> Bool in
                    if log.order.count < count { log.startWaiters.append((count, waiter)) }
                    return log.order.count >= count
                }
                if reached { waiter.resume() }
            }
        }
    }

    static let key = DispatchSpecificKey<Int>()

    /// A task executor whose jobs run on one serial queue, marked so that work can tell it runs there.
    final class QueueExecutor: TaskExecutor, @unchecked Sendable {
        let queue = DispatchQueue(label: "flow-scheduler-test")
        init() { queue.setSpecific(key: FlowSchedulerTests.key, value: 1) }
        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    static func scheduler(
        limit: Int, executor: (any TaskExecutor)? = nil, recorder: Recorder
    ) -> FlowScheduler<Item> {
        FlowScheduler<Item>(limit: limit, executor: executor) { item in
            let onExecutor = executor == nil || DispatchQueue.getSpecific(key: FlowSchedulerTests.key) != nil
            recorder.started(item, onExecutor: onExecutor)
            await recorder.pass()
            recorder.ended(item)
        }
    }

    /// Submits `items` from a task of its own, counting each submission that returned.
    static func reader(
        _ scheduler: FlowScheduler<Item>, _ items: [Item], recorder: Recorder
    ) -> Task<Void, Never> {
        Task {
            for item in items {
                await scheduler.submit(item, flow: item.flow)
                recorder.log.withLock { $0.submitted += 1 }
            }
            await scheduler.waitUntilIdle()
            scheduler.close()
        }
    }

    @Test func theReaderWaitsAtTheBoundAndEachFlowRunsInOrder() async {
        let recorder = Recorder()
        let scheduler = Self.scheduler(limit: 4, recorder: recorder)
        let flows = ["a", "b", "c", "d", "e", "f"]
        let items = (0..<60).map { Item(flow: flows[$0 % 6], index: $0) }
        let reader = Self.reader(scheduler, items, recorder: recorder)
        // Four flows hold an item each, blocked on the gate: the fifth submission waits for room.
        await recorder.waitForStarted(4)
        let atTheBound = recorder.seen
        #expect(scheduler.inFlight == 4)
        #expect(atTheBound.submitted <= 4)
        #expect(atTheBound.order.count == 4)
        recorder.open()
        await reader.value
        let seen = recorder.seen
        #expect(seen.order.count == 60)
        for (position, flow) in flows.enumerated() {
            #expect(seen.started[flow] == Array(stride(from: position, to: 60, by: 6)))
        }
        #expect(seen.mostRunning == 4)
        #expect(seen.overlapsInAFlow == 0)
        #expect(seen.running == 0)
    }

    @Test func aFlowsItemsQueueBehindItsRunningOne() async {
        let recorder = Recorder()
        let scheduler = Self.scheduler(limit: 8, recorder: recorder)
        // Eight items of one flow fit the bound, but only the first runs until it ends.
        let items = (0..<8).map { Item(flow: "one", index: $0) }
        let reader = Self.reader(scheduler, items, recorder: recorder)
        await recorder.waitForStarted(1)
        #expect(recorder.seen.mostRunning == 1)
        recorder.open()
        await reader.value
        let seen = recorder.seen
        #expect(seen.order == Array(0..<8))
        #expect(seen.mostRunning == 1)
        #expect(seen.submitted == 8)
    }

    @Test func aBarrierWaitsForAllBeforeItAndHoldsBackAllAfter() async {
        let recorder = Recorder()
        recorder.open()
        let scheduler = Self.scheduler(limit: 8, recorder: recorder)
        for index in 0..<30 { await scheduler.submit(Item(flow: "d\(index % 6)", index: index), flow: "d\(index % 6)") }
        await scheduler.runAlone(Item(flow: "backend", index: 100))
        for index in 30..<60 {
            await scheduler.submit(Item(flow: "d\(index % 6)", index: index), flow: "d\(index % 6)")
        }
        await scheduler.waitUntilIdle()
        scheduler.close()
        let order = recorder.seen.order
        #expect(order.firstIndex(of: 100) == 30)
        #expect(Set(order.prefix(30)) == Set(0..<30))
        #expect(Set(order.suffix(30)) == Set(30..<60))
    }

    @Test func oneAtATimeWhenTheBoundIsOne() async {
        let recorder = Recorder()
        let scheduler = Self.scheduler(limit: 1, recorder: recorder)
        let items = (0..<20).map { Item(flow: "f\($0 % 7)", index: $0) }
        let reader = Self.reader(scheduler, items, recorder: recorder)
        await recorder.waitForStarted(1)
        #expect(scheduler.inFlight == 1)
        #expect(recorder.seen.submitted <= 1)
        recorder.open()
        await reader.value
        let seen = recorder.seen
        #expect(seen.order == Array(0..<20))
        #expect(seen.mostRunning == 1)
    }

    @Test func flowsRunOnTheExecutorTheyAreGiven() async {
        let recorder = Recorder()
        recorder.open()
        let scheduler = Self.scheduler(limit: 16, executor: QueueExecutor(), recorder: recorder)
        for index in 0..<100 {
            await scheduler.submit(Item(flow: "f\(index % 9)", index: index), flow: "f\(index % 9)")
        }
        await scheduler.waitUntilIdle()
        scheduler.close()
        let seen = recorder.seen
        #expect(seen.order.count == 100)
        #expect(seen.offExecutor == 0)
    }

    @Test func waitingForIdleWithNothingInFlightReturns() async {
        let scheduler = Self.scheduler(limit: 4, recorder: Recorder())
        await scheduler.waitUntilIdle()
        await scheduler.waitUntilIdle()
        #expect(scheduler.workers.made == 0)
    }

    /// A worker whose flow has ended takes the next flow that starts: a replay makes as many tasks as flows run at
    /// its busiest moment, not one per exchange.
    @Test func workersAreReusedAcrossFlows() async {
        let recorder = Recorder()
        recorder.open()
        // One at a time: each flow starts once the last has ended, so one worker serves all twenty.
        let single = Self.scheduler(limit: 1, recorder: recorder)
        await Self.reader(single, (0..<20).map { Item(flow: "f\($0)", index: $0) }, recorder: recorder).value
        #expect(single.workers.made == 1)
        // Four at a time over many more flows: never more workers than the bound.
        let four = Self.scheduler(limit: 4, recorder: recorder)
        await Self.reader(four, (0..<200).map { Item(flow: "g\($0 % 50)", index: 20 + $0) }, recorder: recorder).value
        #expect(four.workers.made <= 4)
        #expect(recorder.seen.order.count == 220)
        #expect(recorder.seen.overlapsInAFlow == 0)
    }

    /// Closing ends the workers that wait for a flow; one still working ends once its flow has, and work submitted
    /// after the close still runs.
    @Test func closingEndsTheWaitingWorkers() async {
        let recorder = Recorder()
        // Three flows that cannot share a worker: the gate holds each until all three have started.
        let gate = Recorder()
        let held = FlowScheduler<Item>(limit: 4) { item in
            recorder.started(item, onExecutor: true)
            await gate.pass()
            recorder.ended(item)
        }
        for index in 0..<3 { await held.submit(Item(flow: "f\(index)", index: index), flow: "f\(index)") }
        await recorder.waitForStarted(3)
        #expect(held.workers == (made: 3, alive: 3, waiting: 0))
        gate.open()
        await held.waitUntilIdle()
        #expect(await Eventually.holds { held.workers.waiting == 3 })
        held.close()
        #expect(await Eventually.holds { held.workers.alive == 0 })
        // Submitted after the close: it runs, and its worker ends once its flow has.
        await held.submit(Item(flow: "late", index: 3), flow: "late")
        await held.waitUntilIdle()
        #expect(await Eventually.holds { held.workers.alive == 0 })
        #expect(held.workers.made == 4)
        #expect(Set(recorder.seen.order) == Set(0..<4))
    }
}

/// The outcomes an unpaced replay's I/O thread ends wait for the replay's task, and come out once each, in order.
@Suite struct OutcomeHandoffTests {
    func outcome(_ seq: Int) -> ReplayOutcome {
        ReplayOutcome(
            seq: seq, flow: "f", request: HTTPRequest(method: .get, url: "/x"), expected: HTTPResponse(status: 200),
            actual: nil, differences: [], transportError: nil)
    }

    @Test func outcomesComeOutOnceInTheOrderTheyEnded() {
        let handoff = OutcomeHandoff()
        var seen: [Int] = []
        handoff.drain { seen.append($0.seq) }
        #expect(seen.isEmpty)
        for seq in 1...3 { handoff.append(outcome(seq)) }
        handoff.drain { seen.append($0.seq) }
        handoff.append(outcome(4))
        handoff.drain { seen.append($0.seq) }
        handoff.drain { seen.append($0.seq) }
        #expect(seen == [1, 2, 3, 4])
    }
}
