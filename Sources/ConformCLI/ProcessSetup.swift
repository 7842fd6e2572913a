import ConformTransports
import Dispatch
import Synchronization

#if canImport(Glibc)
    import CMalloc
    import Glibc
#endif

extension ConformCommand {
    /// Settings for the whole process, applied by the `conform` executable before anything else runs (the
    /// library's callers, such as tests, keep their own).
    ///
    /// With glibc, buffers of 1 MiB and more are mapped, and given back when freed, unless `MALLOC_MMAP_THRESHOLD_`
    /// is set in the environment (glibc then honours that as usual). By default glibc raises that threshold each
    /// time it frees a mapped buffer, so once a suite file's bytes (several MB) are freed, later buffers of that
    /// size (a file's list of steps while it grows, a report's text) come from the heaps of the threads' arenas and
    /// leave holes there that the rest of a long run cannot use. On a 100,000-step run (`bench/memory/rss.sh`):
    /// 99 MB by default, 88 MB with the threshold fixed. (Limiting the arenas to one gave 102 MB alone and nothing
    /// more with the threshold fixed, and cost a replay a quarter of its rate: it is left alone.)
    ///
    /// SIGINT, SIGTERM and SIGHUP end the adapters Conform started (their whole process groups) before the process
    /// ends by the same signal, so none is left running; a command that stops itself on SIGINT or SIGTERM (`serve`,
    /// `mock`, `record`) does so and returns as usual.
    public static func configureProcess() {
        #if canImport(Glibc)
            if getenv("MALLOC_MMAP_THRESHOLD_") == nil { _ = conform_malloc_mmap_threshold(1 << 20) }
        #endif
        EndingSignals.install()
    }

    /// Ends the process with `code` once every adapter it started is gone: the executable's normal way out.
    /// When a signal is ending the process, the command's own end (its adapter failed meanwhile) gives way to it.
    public static func endProcess(_ code: Int32) -> Never {
        if let sig = EndingSignals.received { EndingSignals.end(by: sig) }
        AdapterGroups.endAll()
        exit(code)
    }
}

/// The signals that end `conform`, handled so that adapters end with it.
enum EndingSignals {
    static let all = [SIGINT, SIGTERM, SIGHUP]
    private static let first = Mutex<Int32?>(nil)

    /// The signal that is ending the process, if one is.
    static var received: Int32? { first.withLock { $0 } }

    private static let installed = Mutex(false)

    /// Installs the handlers, once per process: one dispatch source per signal, as libdispatch delivers a signal to
    /// one source only.
    static func install() {
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
    static func end(by sig: Int32) -> Never {
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
