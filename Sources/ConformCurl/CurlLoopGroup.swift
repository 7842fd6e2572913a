import ConformCore
import Synchronization

/// Several ``CurlLoop``s as one executor: a job enqueued from one of the loops' threads stays on that thread, any
/// other goes to the next loop in turn. A server that joins each loop (``IOLoop``) starts a request's task on the loop
/// that received it, and the task sends, waits and answers there.
final class CurlLoopGroup: TaskExecutor, @unchecked Sendable {
    /// Set once by ``join(_:)`` before any job is enqueued.
    private(set) var loops: [CurlLoop] = []
    private let turn = Atomic(0)

    /// Gives the group its loops (made with this group as their owner).
    func join(_ loops: [CurlLoop]) { self.loops = loops }

    /// The loop whose thread calls, if any.
    var current: CurlLoop? { loops.first { $0.isCurrentThread } }

    /// The caller's own loop, or the next one in turn.
    var chosen: CurlLoop {
        if let current { return current }
        let index = turn.add(1, ordering: .relaxed).oldValue
        return loops[index % loops.count]
    }

    func enqueue(_ job: consuming ExecutorJob) { chosen.enqueue(job) }
}
