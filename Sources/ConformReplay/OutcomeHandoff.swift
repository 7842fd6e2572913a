import Synchronization

/// Outcomes ended on the I/O thread, waiting for the replay's own task to hand them on.
final class OutcomeHandoff: Sendable {
    private let outcomes = Mutex<[ReplayOutcome]>([])

    func append(_ outcome: ReplayOutcome) { outcomes.withLock { $0.append(outcome) } }

    /// Hands every outcome waiting to `handler`, in the order they ended, outside the lock.
    func drain(into handler: (ReplayOutcome) -> Void) {
        let taken = outcomes.withLock { outcomes -> [ReplayOutcome] in
            guard !outcomes.isEmpty else { return [] }
            defer { outcomes.removeAll(keepingCapacity: true) }
            return outcomes
        }
        for outcome in taken { handler(outcome) }
    }
}
