import Synchronization

/// The deadlines of exchanges under way, watched by one task that runs only while some are pending.
///
/// A sleeping task per exchange would do the same, but a cancelled sleep stays queued in the executor until its
/// time would have come: at thousands of exchanges a second with a 10 s timeout, that is tens of thousands of
/// dead timers. Here an exchange that ends removes its deadline at once.
final class DeadlineWatch: Sendable {
    /// How often the watch looks for expired deadlines.
    static let tick: Duration = .milliseconds(20)
    /// What ``DeadlineTransport`` adds to each deadline, far beyond ``tick``: an exchange that answers right at its
    /// limit is not cut short.
    static let grace: Duration = .milliseconds(250)

    /// The watch shared by every runner of the process.
    static let shared = DeadlineWatch()

    private struct Entry {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var pending: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var watching = false
    }

    private let state = Mutex(State())

    /// How many deadlines are pending (for tests).
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Calls `expire` once `deadline` passes, unless `remove` is called with the returned id first.
    func add(deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, start) = state.withLock { state -> (UInt64, Bool) in
            state.nextID &+= 1
            state.pending[state.nextID] = Entry(deadline: deadline, expire: expire)
            defer { state.watching = true }
            return (state.nextID, !state.watching)
        }
        if start { Task.detached { await self.watch() } }
        return id
    }

    func remove(_ id: UInt64) {
        _ = state.withLock { $0.pending.removeValue(forKey: id) }
    }

    private func watch() async {
        while true {
            try? await Task.sleep(for: Self.tick)
            let now = ContinuousClock.now
            let (expired, done) = state.withLock { state -> ([Entry], Bool) in
                let due = state.pending.filter { $0.value.deadline <= now }
                for id in due.keys { state.pending[id] = nil }
                if state.pending.isEmpty { state.watching = false }
                return (Array(due.values), state.pending.isEmpty)
            }
            for entry in expired { entry.expire() }
            if done { return }
        }
    }
}
