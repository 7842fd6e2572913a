internal import CCurl
import ConformCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One thread that drives every transfer of a ``CurlTransport`` through a libcurl multi handle, and that also runs
/// the jobs of tasks preferring it as their executor: a task that sends from this thread and handles the response
/// here never changes thread, and concurrent exchanges share one thread instead of one each.
///
/// Other I/O can join the loop (``IOLoop``): a server's descriptor is waited on beside libcurl's sockets, and the
/// server's work runs on this thread when it is ready, so a request, its exchange and its answer never change thread.
final class CurlLoop: TaskExecutor, IOLoop, @unchecked Sendable {
    /// What other threads hand to the loop; guarded by `inbox`.
    private struct Inbox {
        var jobs: [UnownedJob] = []
        var transfers: [CurlTransfer] = []
        var cancellations = false
        var stopping = false
        /// The loop waits in `curl_multi_poll` and needs a wake-up for anything new.
        var sleeping = false
        var started = false
        var exited = false
        var attaching: [any IOLoopSource] = []
        /// Sources to remove, each with the semaphore its ``detach(_:)`` waits on.
        var detaching: [(ObjectIdentifier, DispatchSemaphore?)] = []
        /// Sources woken from other threads since the last turn.
        var woken: [ObjectIdentifier] = []
        /// The executor the loop's jobs run on: a ``CurlLoopGroup``'s when the loop is one of several, so a task that
        /// prefers the group finds itself on it. Let go when the loop ends, or at shutdown if it never started.
        var owner: (any TaskExecutor)?
    }

    /// A source the loop drives, and when it asked to run again.
    private struct Joined {
        let source: any IOLoopSource
        var due: ContinuousClock.Instant?
    }

    private let inbox = Mutex(Inbox())
    private let multi: UnsafeMutableRawPointer
    private let maxTransfers: Int
    let handles = EasyHandlePool()

    // Touched by the loop thread only.
    private var active: [ObjectIdentifier: CurlTransfer] = [:]
    private var queued: [CurlTransfer] = []
    private var queuedHead = 0
    private var jobs: [UnownedJob] = []
    private var joined: [Joined] = []
    /// Sources to run on this turn whatever their descriptors say (``wake(_:)``).
    private var woken: [ObjectIdentifier] = []
    private var waits: [curl_waitfd] = []
    /// The loop thread's `pthread_self()`, 0 before it starts.
    private let threadID = Atomic<UInt>(0)
    /// How many transfers wait for a slot (written by the loop thread, readable from any).
    private let waitingCount = Atomic(0)

    /// How many exchanges the loop holds that wait for their turn (``CurlTransport/waitingExchanges``).
    var waiting: Int { waitingCount.load(ordering: .acquiring) }

    /// Whether the loop's thread has ended: its transport let go and nothing is joined. A source that attaches starts
    /// it again.
    var hasExited: Bool { inbox.withLock { $0.exited } }

    /// Whether the caller runs on this loop's thread.
    var isCurrentThread: Bool {
        let id = threadID.load(ordering: .relaxed)
        return id != 0 && id == UInt(pthread_self())
    }

    init(maxTransfers: Int, owner: (any TaskExecutor)? = nil) {
        inbox.withLock { $0.owner = owner }
        CurlGlobal.initialize()
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed: libcurl is out of memory") }
        self.multi = multi
        self.maxTransfers = max(1, maxTransfers)
        // libcurl's default cache keeps four idle connections per easy handle added *now*: with transfers added and
        // removed all the time it shrinks to a few whenever few are in flight, and closes connections a moment later
        // needed again (a new TCP connection, and a TLS handshake, for most exchanges under load). As many idle
        // connections as transfers may run keeps every one reusable.
        _ = conform_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, self.maxTransfers)
    }

    deinit {
        curl_multi_cleanup(multi)
        handles.drain()
    }

    // MARK: - From any thread

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (wake, exited) = inbox.withLock { inbox in
            inbox.jobs.append(job)
            return (wakeUp(&inbox), inbox.exited)
        }
        if exited {
            // Only a task that outlived its transport gets here; it goes on on a thread of the global pool.
            let drained = inbox.withLock { inbox in
                let jobs = inbox.jobs
                inbox.jobs = []
                return jobs
            }
            let executor = asUnownedTaskExecutor()
            for job in drained { DispatchQueue.global().async { job.runSynchronously(on: executor) } }
        } else if wake {
            curl_multi_wakeup(multi)
        }
    }

    /// Starts `transfer` once fewer than `maxTransfers` run; its continuation is resumed on the loop thread.
    func start(_ transfer: CurlTransfer) {
        let (wake, exited) = inbox.withLock { inbox in
            inbox.transfers.append(transfer)
            return (wakeUp(&inbox), inbox.exited)
        }
        if exited {
            transfer.complete(
                .failure(TransportError(.other, "\(transfer.method) \(transfer.url): the transport is closed")))
        } else if wake {
            curl_multi_wakeup(multi)
        }
    }

    /// Tells the loop that a transfer's cancel flag was set.
    func noteCancellation() {
        let wake = inbox.withLock { inbox in
            inbox.cancellations = true
            return wakeUp(&inbox)
        }
        if wake { curl_multi_wakeup(multi) }
    }

    /// Lets the loop thread end once every transfer and job it holds is done and no source is joined.
    func shutdown() {
        let wake = inbox.withLock { inbox in
            inbox.stopping = true
            if !inbox.started { inbox.owner = nil }
            return inbox.started && wakeUp(&inbox)
        }
        if wake { curl_multi_wakeup(multi) }
    }

    func attach(_ source: any IOLoopSource) {
        let wake = inbox.withLock { inbox in
            inbox.attaching.append(source)
            // A loop that ended (its transport let go) starts again for the source, and ends when it is detached.
            if inbox.exited {
                inbox.exited = false
                inbox.started = false
            }
            return wakeUp(&inbox)
        }
        if wake { curl_multi_wakeup(multi) }
    }

    func wake(_ source: any IOLoopSource) {
        let id = ObjectIdentifier(source)
        if isCurrentThread {
            if !woken.contains(id) { woken.append(id) }
            return
        }
        let wake = inbox.withLock { inbox in
            inbox.woken.append(id)
            return wakeUp(&inbox)
        }
        if wake { curl_multi_wakeup(multi) }
    }

    func detach(_ source: any IOLoopSource) {
        let own = isCurrentThread
        let done = own ? nil : DispatchSemaphore(value: 0)
        let (wake, exited) = inbox.withLock { inbox in
            inbox.attaching.removeAll { $0 === source }
            guard !inbox.exited else { return (false, true) }
            inbox.detaching.append((ObjectIdentifier(source), done))
            return (wakeUp(&inbox), false)
        }
        if exited { return }
        if wake { curl_multi_wakeup(multi) }
        done?.wait()
    }

    /// Starts the thread on first use; `true` when the loop sleeps and must be woken.
    private func wakeUp(_ inbox: inout Inbox) -> Bool {
        if !inbox.started && !inbox.exited {
            inbox.started = true
            let thread = Thread { [self] in run() }
            thread.name = "conform-curl"
            thread.start()
            return false
        }
        guard inbox.sleeping else { return false }
        inbox.sleeping = false
        return true
    }

    // MARK: - On the loop thread

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        let owner = inbox.withLock { $0.owner }
        let executor = owner?.asUnownedTaskExecutor() ?? asUnownedTaskExecutor()
        var running: Int32 = 0
        while true {
            let (transfers, cancellations, stopping, attaching, detaching) = inbox.withLock { inbox in
                swap(&jobs, &inbox.jobs)
                if !inbox.woken.isEmpty {
                    for id in inbox.woken where !woken.contains(id) { woken.append(id) }
                    inbox.woken.removeAll(keepingCapacity: true)
                }
                let taken = (
                    inbox.transfers, inbox.cancellations, inbox.stopping, inbox.attaching, inbox.detaching
                )
                inbox.transfers = []
                inbox.cancellations = false
                inbox.attaching = []
                inbox.detaching = []
                return taken
            }
            if !attaching.isEmpty || !detaching.isEmpty { rejoin(attaching, detaching) }
            if !jobs.isEmpty {
                for job in jobs { job.runSynchronously(on: executor) }
                jobs.removeAll(keepingCapacity: true)
            }
            queued.append(contentsOf: transfers)
            if cancellations { endCancelled() }
            admit()
            waitingCount.store(queued.count - queuedHead, ordering: .releasing)
            _ = curl_multi_perform(multi, &running)
            collectFinished()
            if stopping && active.isEmpty && queuedHead == queued.count && joined.isEmpty {
                // Sources detached since this turn's take were never joined; they are let go with the loop, in the
                // same lock that marks it ended, so a detach of a later run (after an attach restarts it) is never
                // answered by this one.
                let leaving = inbox.withLock { inbox -> [DispatchSemaphore?]? in
                    guard inbox.jobs.isEmpty && inbox.transfers.isEmpty && inbox.attaching.isEmpty else {
                        return nil
                    }
                    inbox.exited = true
                    inbox.owner = nil
                    let waiting = inbox.detaching.map(\.1)
                    inbox.detaching = []
                    return waiting
                }
                if let leaving {
                    for done in leaving { done?.signal() }
                    break
                }
                continue
            }
            let busy = queuedHead < queued.count && active.count < maxTransfers
            let idle =
                !busy
                && inbox.withLock { inbox in
                    guard
                        inbox.jobs.isEmpty && inbox.transfers.isEmpty && !inbox.cancellations
                            && inbox.attaching.isEmpty && inbox.detaching.isEmpty && inbox.woken.isEmpty
                    else { return false }
                    inbox.sleeping = true
                    return true
                }
            if joined.isEmpty {
                guard idle else { continue }
                // libcurl shortens the wait to its own next timeout; `curl_multi_wakeup` ends it early.
                _ = curl_multi_poll(multi, nil, 0, 1000, nil)
                inbox.withLock { $0.sleeping = false }
            } else {
                // A joined source is asked on every turn, busy or not, so that a loop full of transfers still
                // serves it.
                pollJoined(timeout: idle ? joinedTimeout() : 0)
                if idle { inbox.withLock { $0.sleeping = false } }
                runJoined()
            }
        }
    }

    /// Takes the sources attached and detached since the last turn.
    private func rejoin(_ attaching: [any IOLoopSource], _ detaching: [(ObjectIdentifier, DispatchSemaphore?)]) {
        let now = ContinuousClock.now
        for source in attaching { joined.append(Joined(source: source, due: now)) }
        for (id, done) in detaching {
            joined.removeAll { ObjectIdentifier($0.source) == id }
            done?.signal()
        }
        waits = joined.map { curl_waitfd(fd: $0.source.descriptor, events: Int16(CURL_WAIT_POLLIN), revents: 0) }
    }

    /// Milliseconds until the soonest source asked to run again, at most a second.
    private func joinedTimeout() -> Int32 {
        if !woken.isEmpty { return 0 }
        guard let due = joined.compactMap(\.due).min() else { return 1000 }
        let left = ContinuousClock.now.duration(to: due)
        return Int32(max(0, min(1000, left.wholeMilliseconds + (left > .zero ? 1 : 0))))
    }

    private func pollJoined(timeout: Int32) {
        for index in waits.indices { waits[index].revents = 0 }
        _ = waits.withUnsafeMutableBufferPointer { buffer in
            curl_multi_poll(multi, buffer.baseAddress, UInt32(buffer.count), timeout, nil)
        }
    }

    /// Runs each source whose descriptor is ready or whose time has come.
    private func runJoined() {
        var now: ContinuousClock.Instant?
        for index in joined.indices {
            let id = ObjectIdentifier(joined[index].source)
            var due = waits[index].revents != 0
            if let at = woken.firstIndex(of: id) {
                woken.remove(at: at)
                due = true
            }
            if !due, let asked = joined[index].due {
                let current = now ?? .now
                now = current
                due = asked <= current
            }
            guard due else { continue }
            let next = joined[index].source.run()
            joined[index].due = next.map { ContinuousClock.now + .milliseconds($0) }
        }
    }

    private func admit() {
        while active.count < maxTransfers && queuedHead < queued.count {
            let transfer = queued[queuedHead]
            queuedHead += 1
            if transfer.cancelled.isSet {
                end(transfer, .failure(cancelledError(transfer)))
                continue
            }
            let added = curl_multi_add_handle(multi, transfer.handle.raw)
            guard added == CURLM_OK else {
                let reason = String(cString: curl_multi_strerror(added))
                end(
                    transfer, .failure(TransportError(.other, "\(transfer.method) \(transfer.url): libcurl: \(reason)"))
                )
                continue
            }
            active[ObjectIdentifier(transfer)] = transfer
        }
        // Emptied only once all were taken (the loop comes here on every turn, most often with nothing queued).
        if queuedHead > 0 && queuedHead == queued.count {
            queued.removeAll(keepingCapacity: true)
            queuedHead = 0
        }
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var privatePointer: UnsafeMutableRawPointer?
            _ = conform_curl_getinfo_ptr(easy, CURLINFO_PRIVATE, &privatePointer)
            guard let privatePointer else {
                curl_multi_remove_handle(multi, easy)
                continue
            }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(privatePointer).takeUnretainedValue()
            let outcome = CurlExchange.finish(transfer, code: code)
            curl_multi_remove_handle(multi, easy)
            active[ObjectIdentifier(transfer)] = nil
            end(transfer, outcome)
        }
    }

    private func endCancelled() {
        for transfer in active.values where transfer.cancelled.isSet {
            curl_multi_remove_handle(multi, transfer.handle.raw)
            active[ObjectIdentifier(transfer)] = nil
            end(transfer, .failure(cancelledError(transfer)))
        }
        // Those still waiting for a slot end now too, not when a slot frees.
        let waiting = queued[queuedHead...]
        guard waiting.contains(where: { $0.cancelled.isSet }) else { return }
        queued = waiting.filter { !$0.cancelled.isSet }
        queuedHead = 0
        for transfer in waiting where transfer.cancelled.isSet { end(transfer, .failure(cancelledError(transfer))) }
    }

    private func end(_ transfer: CurlTransfer, _ outcome: Result<HTTPResponse, TransportError>) {
        handles.put(transfer.handle)
        transfer.complete(outcome)
    }

    private func cancelledError(_ transfer: CurlTransfer) -> TransportError {
        TransportError(.other, "\(transfer.method) \(transfer.url): cancelled")
    }
}
