import Foundation

/// Copies of the state a little behind the present, so backend People reads can lag behind writes (variant
/// `eventualPeople`, D18).
///
/// A read at time `t` sees the newest saved state all of whose writes happened at or before `t - lag`. Copies
/// are taken before a write, at most one per `granularity`, so a write shows after `lag` to `lag + granularity`,
/// and about `lag / granularity + 2` copies are kept. Copies share storage with the live state until it changes.
struct PeopleHistory: Sendable {
    /// How far reads lag behind writes.
    let lag: TimeInterval
    /// The shortest time between two copies.
    let granularity: TimeInterval
    /// Saved states, oldest first; `stamp` is the time of the newest write each one holds.
    private(set) var copies: [(stamp: Date, state: ReferenceState)]
    /// The time of the newest write to the live state.
    private var lastWrite: Date
    /// Whether the live state holds writes no copy holds.
    private var unsaved = false

    init(initial: ReferenceState, lag: TimeInterval, granularity: TimeInterval = 0.05) {
        self.lag = lag
        self.granularity = granularity
        copies = [(.distantPast, initial)]
        lastWrite = .distantPast
    }

    /// Call before a request that may change `current`, at time `now`.
    mutating func willWrite(at now: Date, current: ReferenceState) {
        // Unsaved writes are merged into this one only while that delays them by less than `granularity`.
        if unsaved, let saved = copies.last?.stamp, now.timeIntervalSince(saved) >= granularity {
            copies.append((lastWrite, current))
            unsaved = false
        }
        // Keep the newest copy a read could still need, and everything after it.
        if let keep = copies.lastIndex(where: { $0.stamp <= now.addingTimeInterval(-lag) }), keep > 0 {
            copies.removeFirst(keep)
        }
    }

    /// Call after a request that may have changed the live state, at time `now`.
    mutating func didWrite(at now: Date) {
        lastWrite = max(lastWrite, now)
        unsaved = true
    }

    /// The state a lagging read at time `now` sees, given the live state `current`.
    func view(at now: Date, current: ReferenceState) -> ReferenceState {
        let horizon = now.addingTimeInterval(-lag)
        if lastWrite <= horizon { return current }
        return copies.last { $0.stamp <= horizon }?.state ?? copies[0].state
    }
}
