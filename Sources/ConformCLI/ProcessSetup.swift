import ConformCrypto
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
        // Before libcurl or a listener initialises it: libcrypto frees nothing at exit, where a thread still in TLS
        // work would take a freed lock (`CryptoLibrary.initializeWithoutExitCleanup`).
        CryptoLibrary.initializeWithoutExitCleanup()
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
