import Synchronization
import Testing

@testable import ConformCore

/// Exchange deadlines: one watch fires those that pass and forgets, at once, those of exchanges that ended.
@Suite struct DeadlineWatchTests {
    @Test func firesPassedDeadlinesAndForgetsRemovedOnes() async throws {
        let watch = DeadlineWatch()
        let fired = Mutex<[String]>([])
        let ended = watch.add(deadline: .now + .milliseconds(10)) { fired.withLock { $0.append("ended") } }
        watch.remove(ended)
        _ = watch.add(deadline: .now + .milliseconds(10)) { fired.withLock { $0.append("late") } }
        let far = (0..<10_000).map { _ in watch.add(deadline: .now + .seconds(3600)) {} }
        #expect(watch.pendingCount == 10_001)
        for id in far { watch.remove(id) }
        #expect(watch.pendingCount == 1)
        // Progress-based: wait (generously) for the one deadline left to fire.
        for _ in 0..<1000 where fired.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(fired.withLock { $0 } == ["late"])
        #expect(watch.pendingCount == 0)
        // The watch stopped with nothing pending, and starts again for the next deadline.
        _ = watch.add(deadline: .now) { fired.withLock { $0.append("again") } }
        for _ in 0..<1000 where fired.withLock({ $0.count < 2 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(fired.withLock { $0 } == ["late", "again"])
    }
}
