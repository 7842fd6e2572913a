import ConformCLI
import ConformCore
import ConformReport
import ConformTestSupport
import Foundation
import Testing

/// `conform replay`, `diff` and `mock` write the same JUnit, JSON and HTML reports as `run` and `check`.
@Suite struct TrafficReportTests {
    static let root = SuitesBundle.root
    static let recording = "recordings/personalization-flow"

    /// A fresh directory for report files, removed by `body`'s caller.
    func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    func io(_ out: MemorySink) -> CommandIO {
        CommandIO(out: out, err: MemorySink(), color: false, environment: [:], currentDirectory: Self.root.path)
    }

    func steps(_ file: URL) throws -> [JSONValue] {
        let report = try JSONValue.parse(Data(contentsOf: file))
        return (report["suites"]?.arrayValue ?? []).flatMap { $0["steps"]?.arrayValue ?? [] }
    }

    @Test func aReplayReportsEveryExchangeByDeviceFlow() async throws {
        try await withDirectory { directory in
            let json = directory.appendingPathComponent("replay.json")
            let junit = directory.appendingPathComponent("replay.xml")
            let html = directory.appendingPathComponent("replay.html")
            let out = MemorySink()
            let code = await ConformCommand.main(
                [
                    // In process beside hundreds of other tests: a long timeout, so a starved thread is not read
                    // as the reference failing to answer.
                    "conform", "replay", Self.recording, "--noise", "\(Self.recording)/noise.yaml", "--quiet",
                    "--timeout", "300",
                    "--report", "json:\(json.path)", "--report", "junit:\(junit.path)", "--report", "html:\(html.path)",
                ], io: io(out))
            #expect(code == 0, "\(out.text)")
            let steps = try steps(json)
            #expect(!steps.isEmpty)
            #expect(steps.allSatisfy { $0["verdict"]?.stringValue == "pass" })
            let replayed = out.text.split(separator: "\n").first { $0.hasPrefix("Replayed ") }
            #expect(replayed?.hasPrefix("Replayed \(steps.count) exchanges") == true, "\(out.text)")
            let xml = try String(contentsOf: junit, encoding: .utf8)
            #expect(xml.contains("<testsuite name=\"flow "))
            #expect(try String(contentsOf: html, encoding: .utf8).contains("device flow"))
        }
    }

    @Test func aDiffReportsWhereBDiffersFromA() async throws {
        try await withDirectory { directory in
            let json = directory.appendingPathComponent("diff.json")
            let out = MemorySink()
            let code = await ConformCommand.main(
                [
                    "conform", "diff", "--target", "builtin", "--target", "builtin", "--fault-b",
                    "ignoreForceDepersonalize", "--noise", "\(Self.recording)/noise.yaml", Self.recording,
                    "--report", "json:\(json.path)",
                ], io: io(out))
            #expect(code == 1, "\(out.text)")
            let steps = try steps(json)
            let failed = steps.filter { $0["verdict"]?.stringValue == "fail" }
            #expect(!failed.isEmpty)
            #expect(steps.contains { $0["verdict"]?.stringValue == "pass" })
            let paths = failed.flatMap { $0["failures"]?.arrayValue ?? [] }.flatMap {
                $0["mismatches"]?.arrayValue ?? []
            }
            .compactMap { $0["path"]?.stringValue }
            #expect(paths.contains("$.externalUserId"))
            // One failed step per differing step the console names.
            let differing = out.text.split(separator: "\n").filter { $0.hasPrefix("✘ ") }.count
            #expect(failed.count == differing, "\(out.text)")
        }
    }

    /// The mock runs as the built binary and is stopped with Ctrl-C once the client's run has ended, as a user
    /// stops it: the session ends on that event, not on a timeout a loaded machine could reach first.
    @Test func aMockSessionReportsStepsNotReachedAndRequestsNotPlaced() async throws {
        let scratch = try Scratch()
        let json = scratch.path("mock.json")
        let mock = try await offThePool {
            try ConformProcess(
                ["mock", "suites/01-registration.yaml", "--port", "0", "--report", "json:\(json)"],
                scratch: scratch, banner: "Mocking ")
        }
        let run = try await ChildProcess.output(
            Self.root.path + "/.build/debug/conform", ["run", "suites/03-logout.yaml", "--target", mock.baseURL],
            directory: Self.root)
        let ended = try await offThePool { try mock.interrupt() }
        #expect(ended.code == 1, "\(ended.out)\n--- run:\n\(run.output)")
        let report = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: json)))
        #expect(report["exitCode"] == .int(1))
        let suites = report["suites"]?.arrayValue ?? []
        #expect(suites.contains { $0["id"]?.stringValue == "unmatched" }, "\(ended.out)\n--- run:\n\(run.output)")
        let steps = suites.flatMap { $0["steps"]?.arrayValue ?? [] }
        #expect(steps.contains { $0["error"]?.stringValue == "no request reached this step" })
    }
}
