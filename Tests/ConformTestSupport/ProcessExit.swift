import Dispatch
import Foundation

/// The end of a program a test started, told by the program's termination handler, so that a synchronous helper
/// can wait for it without `Process.waitUntilExit()`. On a thread of Swift's pool that call spins on a run loop
/// until Foundation marks the child ended, and a clean-clone run once saw it spin forever after the child had exited.
public final class ProcessExit: Sendable {
    private let ended = DispatchSemaphore(value: 0)

    /// Starts `process` (set up but not yet run) with a termination handler that marks its end; throws what
    /// `Process.run()` throws.
    public init(starting process: Process) throws {
        let ended = self.ended
        process.terminationHandler = { _ in ended.signal() }
        do {
            try ProcessLaunch.run(process)
        } catch {
            process.terminationHandler = nil
            throw error
        }
    }

    /// Blocks this thread until the program has ended, or at most `limit` when one is given; returns whether it
    /// ended. Once it has ended, the process's `terminationStatus` and `terminationReason` are final (Foundation
    /// refuses to read them before).
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
