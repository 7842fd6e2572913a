import Dispatch
import Foundation

/// The end of a program a test started, told by the program's termination handler, so that a synchronous helper
/// can wait for it with a bound.
public final class ProcessExit: Sendable {
    private let ended = DispatchSemaphore(value: 0)

    /// Starts `process` (set up but not yet run) with a termination handler that marks its end; throws what
    /// ``SpawnedProcess/run()`` throws.
    public init(starting process: SpawnedProcess) throws {
        let ended = self.ended
        process.terminationHandler = { _ in ended.signal() }
        do {
            try process.run()
        } catch {
            process.terminationHandler = nil
            throw error
        }
    }

    /// Blocks this thread until the program has ended, or at most `limit` when one is given; returns whether it
    /// ended. Once it has ended, the process's `terminationStatus` and `terminationReason` are final.
    @discardableResult
    public func wait(limit: Duration? = nil) -> Bool {
        var deadline = DispatchTime.distantFuture
        if let (seconds, attoseconds) = limit?.components {
            deadline = .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        }
        guard ended.wait(timeout: deadline) == .success else { return false }
        ended.signal()  // a later wait returns at once
        return true
    }
}
