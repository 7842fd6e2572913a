import ConformRunner
import ConformTestSupport
import Foundation
import Testing

/// The commands of `examples/` (a GitHub Actions matrix, a Kubernetes Indexed Job) run as N local processes of the
/// built binary, side by side, then merged: the result is that of one unsharded run.
@Suite struct ShardExamplesTests {
    static let root = BinaryTests.root

    /// Runs `/bin/sh` with `command` and `environment` added, `.build/debug` first on PATH; returns the exit code and
    /// output (standard output and error together).
    static func shell(_ command: [String], environment: [String: String]) async throws -> (code: Int32, out: String) {
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = root.appendingPathComponent(".build/debug").path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env.merge(environment) { _, new in new }
        let outcome = try await ChildProcess.output("/bin/sh", command, environment: env, directory: root)
        return (outcome.status, outcome.output)
    }

    @Test func theIndexedJobCommandsAsLocalProcessesMergeIntoOneRun() async throws {
        let scratch = try Scratch()
        let count = 3
        let shards = try await withThrowingTaskGroup(of: (Int32, String).self) { group in
            for index in 0..<count {
                group.addTask {
                    try await Self.shell(
                        ["examples/sharding/shard.sh", "suites", "--fault", "personalizeNotIdempotent"],
                        environment: [
                            "JOB_COMPLETION_INDEX": String(index), "CONFORM_SHARD_COUNT": String(count),
                            "CONFORM_REPORTS": scratch.url.path,
                        ])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for (code, out) in shards { #expect(code == 0, "a shard failed:\n\(out)") }
        let merged = try await Self.shell(
            ["examples/sharding/merge.sh"], environment: ["CONFORM_REPORTS": scratch.url.path])
        #expect(merged.code == 1, "\(merged.out)")
        #expect(merged.out.hasSuffix("Result: DOES NOT CONFORM\n"))
        let whole = try await Self.shell(
            [
                "-c", "conform run --no-color suites --fault personalizeNotIdempotent --report json:\"$1\"", "sh",
                scratch.path("whole.json"),
            ], environment: [:])
        #expect(whole.code == 1, "\(whole.out)")
        #expect(ShardMergeTests.masked(merged.out) == ShardMergeTests.masked(whole.out))
        let a = try String(contentsOfFile: scratch.path("whole.json"), encoding: .utf8)
        let b = try String(contentsOfFile: scratch.path("conform.json"), encoding: .utf8)
        #expect(ShardMergeTests.masked(a) == ShardMergeTests.masked(b))
        for file in ["conform.html", "conform.junit.xml"] {
            #expect(FileManager.default.fileExists(atPath: scratch.path(file)), "merge.sh wrote no \(file)")
        }
        // Rerunning the merge reads the shard reports only, not its own output.
        let again = try await Self.shell(
            ["examples/sharding/merge.sh"], environment: ["CONFORM_REPORTS": scratch.url.path])
        #expect(again.code == 1, "\(again.out)")
    }

    @Test func aShardWithoutAnIndexIsAUsageError() async throws {
        let result = try await Self.shell(["examples/sharding/shard.sh"], environment: ["CONFORM_SHARD_COUNT": "2"])
        #expect(result.code == 64)
        #expect(result.out.contains("set CONFORM_SHARD_INDEX"))
        let bad = try await Self.shell(
            ["examples/sharding/shard.sh"], environment: ["CONFORM_SHARD_COUNT": "2", "JOB_COMPLETION_INDEX": "x"])
        #expect(bad.code == 64)
    }
}
