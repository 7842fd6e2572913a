#if canImport(Glibc)
    import CMalloc
    import Glibc
#endif

extension ConformCommand {
    /// Settings for the whole process, applied by the `conform` executable before anything else runs (the
    /// library's callers, such as tests, keep their own).
    ///
    /// Two glibc malloc settings, each unless its environment variable is set (glibc then honours that as usual):
    /// - **One arena** (`MALLOC_ARENA_MAX`). By default each thread that allocates while another does gets an arena
    ///   of its own, up to eight per core, and memory freed in one arena is reused only there. A run builds every
    ///   suite's model and every step's result on several threads and keeps them to the end: on a 100,000-step run
    ///   the extra arenas held 17 MB (119 against 102 MB, `bench/memory/rss.sh`) at no measurable cost in speed for
    ///   `run` or `serve`.
    /// - **Buffers of 1 MiB and more are mapped** (`MALLOC_MMAP_THRESHOLD_`), and given back when freed. By default
    ///   glibc raises that threshold each time it frees a mapped buffer, so once a suite file's bytes (several MB)
    ///   are freed, later buffers of that size (a file's list of steps while it grows, a report's text) come from
    ///   the heap and leave holes there: 99 against 88 MB on the same run.
    public static func configureProcess() {
        #if canImport(Glibc)
            if getenv("MALLOC_ARENA_MAX") == nil { _ = conform_malloc_arena_max(1) }
            if getenv("MALLOC_MMAP_THRESHOLD_") == nil { _ = conform_malloc_mmap_threshold(1 << 20) }
        #endif
    }
}
