import ConformTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A signal to `conform` ends the exec adapter it started and the adapter's own children, not only `conform`.
@Suite struct AdapterSignalTests {
    /// An adapter that starts a child of its own, notes both process ids, and then never replies.
    static let adapter = """
        echo $$ > "$1/adapter.pid"
        sleep 300 &
        echo $! > "$1/child.pid"
        cat > /dev/null
        """

    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func aSignalToConformEndsTheAdapterAndItsChildren(_ sig: Int32) async throws {
        try await Self.withConform(adapter: Self.adapter) { process, pids in
            kill(process.processIdentifier, sig)
            let ended = await Eventually.holds(within: .seconds(30)) { !process.isRunning }
            try #require(ended, "conform did not end within 30 s of signal \(sig)")
            #expect(
                process.terminationReason == .uncaughtSignal && process.terminationStatus == sig,
                "conform ended with \(process.terminationReason == .exit ? "status" : "signal") \(process.terminationStatus)"
            )
        }
    }

    /// An adapter that exits at once leaves a child holding its stdout: the run could not run, ends at once, and the
    /// child goes with it.
    @Test func anAdapterThatExitsTakesItsChildrenWithIt() async throws {
        try await Self.withConform(adapter: Self.adapter.replacingOccurrences(of: "cat > /dev/null", with: "exit 0")) {
            process, pids in
            let ended = await Eventually.holds(within: .seconds(60)) { !process.isRunning }
            try #require(ended, "conform did not end within 60 s of its adapter's exit")
            #expect(process.terminationReason == .exit && process.terminationStatus == 2)
        }
    }

    /// Runs the built `conform` on a suite through `adapter`, waits for the adapter to note its ids, hands both to
    /// `body`, and then checks that the adapter and its child are gone; nothing is left behind, whatever happens.
    static func withConform(
        adapter: String, _ body: (SpawnedProcess, [pid_t]) async throws -> Void
    ) async throws {
        let binary = TestPaths.conformBinary.path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build conform with 'swift build' first")
        let scratch = try Scratch("signal")
        let script = scratch.path("adapter.sh")
        try adapter.write(toFile: script, atomically: true, encoding: .utf8)
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "run", "suites/01-registration.yaml", "--no-color", "--timeout", "600",
            "--target", "exec:sh '\(script)' '\(scratch.url.path)'",
        ]
        process.currentDirectoryURL = TestPaths.root
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var pids: [pid_t] = []
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            for pid in pids { kill(pid, SIGKILL) }
        }
        pids = try await waitForPids(in: scratch, within: .seconds(120))
        try #require(pids.count == 2, "the adapter did not start within 120 s")
        try await body(process, pids)
        let gone = await Eventually.holds(within: .seconds(10)) { pids.allSatisfy { !isRunning($0) } }
        #expect(gone, "still running after conform ended: \(pids.filter { isRunning($0) })")
    }

    /// The adapter's and its child's ids, once both files are written.
    static func waitForPids(in scratch: Scratch, within limit: Duration) async throws -> [pid_t] {
        var pids: [pid_t] = []
        _ = await Eventually.holds(within: limit) {
            pids = ["adapter.pid", "child.pid"].compactMap { name in
                (try? String(contentsOfFile: scratch.path(name), encoding: .utf8))
                    .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
            return pids.count == 2
        }
        return pids
    }

    /// Whether `pid` names a live process (a zombie waiting for a parent that never reaps it counts as gone).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return !stat[close...].hasPrefix(") Z")
    }
}
