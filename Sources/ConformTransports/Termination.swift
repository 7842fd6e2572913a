import Synchronization

/// Whether SIGINT or SIGTERM has arrived, for a command that stops itself on them (`serve`, `mock`, `record`,
/// `capture`, a `ProxySession`); the handlers (one per signal, in ``EndingSignals``) are installed once per
/// process.
public final class Termination: Sendable {
    public static let shared = Termination()

    /// Returns when the process gets SIGINT or SIGTERM.
    public static func wait() async {
        await wait(orUntil: { false })
    }

    /// Returns when the process gets SIGINT or SIGTERM, or when `done` becomes true (checked every 50 ms).
    public static func wait(orUntil done: @Sendable () -> Bool) async {
        let signalled = Termination.shared
        signalled.install()
        while !signalled.happened && !done() { try? await Task.sleep(for: .milliseconds(50)) }
    }

    private let state = Mutex((installed: false, happened: false))

    public var happened: Bool { state.withLock { $0.happened } }
    /// Whether a command waits for these signals to stop itself.
    public var installed: Bool { state.withLock { $0.installed } }

    public func install() {
        state.withLock { $0.installed = true }
        EndingSignals.install()
    }

    /// Notes that SIGINT or SIGTERM arrived.
    public func signalled() { state.withLock { $0.happened = true } }
}
