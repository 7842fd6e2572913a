#if canImport(Glibc)
    import Glibc
#endif

/// Waiting, with a bound, for a condition that other threads or processes make true: what a test does instead of a
/// sleep standing for "it happened". The bound only ends a wait that would otherwise never end; it judges nothing.
public enum Eventually {
    /// Whether `condition` held within `limit`, asked every `interval` without holding a thread of Swift's pool.
    public static func holds(
        within limit: Duration = .seconds(10), every interval: Duration = .milliseconds(20), _ condition: () -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: interval)
        }
        return true
    }

    /// Whether `condition` held within `limit`, asked every `interval`, blocking the calling thread in between.
    public static func holdsBlocking(
        within limit: Duration = .seconds(10), every interval: Duration = .milliseconds(20), _ condition: () -> Bool
    ) -> Bool {
        let deadline = ContinuousClock.now + limit
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            usleep(
                useconds_t(
                    interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000))
        }
        return true
    }
}
