import Synchronization

/// Outcomes ended on the I/O thread, waiting for the replay's own task to hand them on.
final class OutcomeHandoff: Sendable {
    private let outcomes = Mutex<[ReplayOutcome]>([])
    /// The list the last drain handed on, emptied, given back to the lock at the next drain: the two lists trade
    /// places, so neither is copied or allocated again (an outcome is some hundred bytes, a list of them kilobytes).
    private let spare = Mutex<[ReplayOutcome]>([])

    func append(_ outcome: ReplayOutcome) { outcomes.withLock { $0.append(outcome) } }

    /// Hands every outcome waiting to `handler`, in the order they ended, outside the lock.
    func drain(into handler: (ReplayOutcome) -> Void) {
        var taken = spare.withLock { spare in
            var empty: [ReplayOutcome] = []
            swap(&empty, &spare)
            return empty
        }
        outcomes.withLock { swap(&taken, &$0) }
        for outcome in taken { handler(outcome) }
        taken.removeAll(keepingCapacity: true)
        spare.withLock { swap(&taken, &$0) }
    }
}
