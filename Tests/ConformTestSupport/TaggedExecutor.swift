import Dispatch
import Synchronization

/// A task executor running its jobs on a serial queue that tags its own thread, so a closure can tell where it runs.
public final class TaggedExecutor: TaskExecutor, @unchecked Sendable {
    public static let key = DispatchSpecificKey<String>()
    public let name: String
    private let queue: DispatchQueue
    /// How many jobs it was given.
    public let jobs = Atomic(0)

    public init(name: String) {
        self.name = name
        queue = DispatchQueue(label: "conform.tests.\(name)")
        queue.setSpecific(key: Self.key, value: name)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        jobs.add(1, ordering: .relaxed)
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// The tag of the queue the caller runs on, or `nil` off every tagged queue.
    public static var current: String? { DispatchQueue.getSpecific(key: key) }
}
