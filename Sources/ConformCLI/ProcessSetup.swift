#if canImport(Glibc)
    import CMalloc
    import Glibc
#endif

extension ConformCommand {
    /// Settings for the whole process, applied by the `conform` executable before anything else runs (the
    /// library's callers, such as tests, keep their own).
    ///
    /// With glibc, each thread that allocates while another does gets a malloc arena of its own, up to eight per
    /// core, and memory freed in one arena is reused only there. A run builds every suite's model and every step's
    /// result on several threads and keeps them to the end, so on a 100,000-step run the extra arenas held 17 MB
    /// (119 MB against 102 MB, `bench/memory/rss.sh`) at no measurable gain in speed for `run` or `serve`. One arena
    /// is used unless `MALLOC_ARENA_MAX` is set in the environment, which glibc honours as usual.
    public static func configureProcess() {
        #if canImport(Glibc)
            if getenv("MALLOC_ARENA_MAX") == nil { _ = conform_malloc_arena_max(1) }
        #endif
    }
}
