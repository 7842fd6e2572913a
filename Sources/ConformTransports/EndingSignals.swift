import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

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

/// The signals that end `conform`, handled so that adapters end with it: SIGINT and SIGTERM stop a command that
/// waits for them (``Termination``), and otherwise, like SIGHUP, end every adapter group and then the process.
public enum EndingSignals {
    public static let all = [SIGINT, SIGTERM, SIGHUP]
    private static let first = Mutex<Int32?>(nil)

    /// The signal that is ending the process, if one is.
    public static var received: Int32? { first.withLock { $0 } }

    private static let installed = Mutex(false)

    /// Installs the handlers, once per process: one dispatch source per signal, as libdispatch delivers a signal to
    /// one source only.
    public static func install() {
        let first = installed.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        // A parent may have started Conform with these blocked (a mask is inherited); threads started later inherit
        // this thread's mask.
        var mask = sigset_t()
        sigemptyset(&mask)
        for sig in all { sigaddset(&mask, sig) }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        for sig in all {
            let previous = signal(sig, SIG_IGN)
            // Started under `nohup`, Conform keeps ignoring hangups, as it always did.
            if sig == SIGHUP, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                continue
            }
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                if sig != SIGHUP && Termination.shared.installed {
                    Termination.shared.signalled()
                } else {
                    end(by: sig)
                }
            }
            source.resume()
            SignalSources.keep(source)
        }
    }

    /// Ends every adapter group, then the process by `sig` itself (its shell sees the conventional 128 + N).
    public static func end(by sig: Int32) -> Never {
        first.withLock { $0 = $0 ?? sig }
        AdapterGroups.endAll()
        signal(sig, SIG_DFL)
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, sig)
        pthread_sigmask(SIG_UNBLOCK, &only, nil)
        raise(sig)
        exit(128 + sig)
    }
}
