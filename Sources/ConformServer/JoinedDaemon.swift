internal import CMicroHTTPD
import ConformCore
import Synchronization

/// A daemon without a thread of its own, served by an ``IOLoop``: run on the loop's thread until stopped.
final class JoinedDaemon: IOLoopSource, @unchecked Sendable {
    private let daemon: DaemonPointer
    let descriptor: Int32
    var pointer: OpaquePointer { daemon.pointer }
    /// Whether the daemon was stopped; held while it runs, so a stop waits for a run in progress.
    private let stopped = Mutex(false)

    init(_ daemon: DaemonPointer, descriptor: Int32) {
        self.daemon = daemon
        self.descriptor = descriptor
    }

    /// Runs what is ready; asks to run again within 100 ms in any case (`conform_mhd_timeout_ms` says why).
    func run() -> Int? {
        stopped.withLock { stopped -> Int? in
            guard !stopped else { return nil }
            MHD_run(daemon.pointer)
            return conform_mhd_timeout_ms(daemon.pointer)
        }
    }

    /// Stops the daemon (once its loop no longer calls ``run()``).
    func stop() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            MHD_stop_daemon(daemon.pointer)
        }
    }
}
