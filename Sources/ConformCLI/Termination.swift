import Dispatch
import Foundation
import Synchronization

/// Whether SIGINT or SIGTERM has arrived, for a command that stops itself on them; the handlers (one per signal, in
/// ``EndingSignals``) are installed once per process.
final class Termination: Sendable {
    static let shared = Termination()

    /// Returns when the process gets SIGINT or SIGTERM.
    static func wait() async {
        await wait(orUntil: { false })
    }

    /// Returns when the process gets SIGINT or SIGTERM, or when `done` becomes true (checked every 50 ms).
    static func wait(orUntil done: @Sendable () -> Bool) async {
        let signalled = Termination.shared
        signalled.install()
        while !signalled.happened && !done() { try? await Task.sleep(for: .milliseconds(50)) }
    }

    private let state = Mutex((installed: false, happened: false))

    var happened: Bool { state.withLock { $0.happened } }
    /// Whether a command waits for these signals to stop itself.
    var installed: Bool { state.withLock { $0.installed } }

    func install() {
        state.withLock { $0.installed = true }
        EndingSignals.install()
    }

    /// Notes that SIGINT or SIGTERM arrived.
    func signalled() { state.withLock { $0.happened = true } }
}

/// Keeps signal sources alive for the life of the process.
enum SignalSources {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    private static let lock = NSLock()

    static func keep(_ source: any DispatchSourceSignal) {
        lock.lock()
        sources.append(source)
        lock.unlock()
    }
}
