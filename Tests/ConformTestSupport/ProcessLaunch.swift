import Foundation
import Synchronization

/// Starts test programs one at a time. A clean-clone run crashed inside Foundation's `Process.run()` (a bad read in
/// its `memmove`) while three test threads were each starting a `conform` at that moment; Conform itself starts its
/// adapters with `posix_spawn`, never through `Process`, so only the tests need this.
public enum ProcessLaunch {
    private static let lock = Mutex(())

    /// Runs `process.run()` while no other test thread is starting a process.
    public static func run(_ process: Process) throws {
        try lock.withLock { _ in try process.run() }
    }
}
