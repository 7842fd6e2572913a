import ConformCore
import ConformReport
import ConformServer
import ConformTestSupport
import Foundation
import Synchronization
import Testing

/// `conform run --repeat N --shard K/N` and `conform merge`: the flaky steps of the shards come back as those of one
/// repeated run.
@Suite struct ShardMergeFlakyTests {
    /// Answers each path with 200 the first time, 500 the second, and so on: a run of two repetitions that sends
    /// every path once a repetition sees pass, then fail, whichever such runs came before.
    final class Flipping: HTTPHandler {
        private let counts = Mutex<[String: Int]>([:])

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            let n = counts.withLock { counts in
                counts[request.url, default: 0] += 1
                return counts[request.url] ?? 0
            }
            return HTTPResponse(status: request.url.contains("/steady/") || n % 2 == 1 ? 200 : 500)
        }
    }

    /// Suites whose ids spread over two shards (echo and india in 1/2, the others in 2/2), interleaved in the plan;
    /// all but the last have a step that flips.
    static let suiteIDs = ["alpha", "echo", "bravo", "india", "charlie"]

    static func writeSuites(in scratch: Scratch) throws -> String {
        let directory = scratch.path("suites")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (n, id) in suiteIDs.enumerated() {
            let flips = n < suiteIDs.count - 1
            let yaml = """
                suite: \(id)
                title: a steady step\(flips ? " and one that flips" : "")
                steps:
                  - name: steady
                    request: {method: GET, url: "{{ mobile }}/steady/\(id)"}
                    expect: {status: 200}
                  - name: \(flips ? "flips" : "steady too")
                    request: {method: GET, url: "{{ mobile }}/\(flips ? "flip" : "steady")/\(id)/2"}
                    expect: {status: 200}

                """
            try Data(yaml.utf8).write(to: URL(fileURLWithPath: directory + "/\(n)-\(id).yaml"))
        }
        return directory
    }

    /// `ShardMergeTests.masked`, and the `Date` header the server sends with each answer.
    static func masked(_ text: String) -> String {
        ShardMergeTests.masked(text).replacing(
            #/[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT/#, with: "HTTP-DATE")
    }

    @Test func mergedShardsOfARepeatedRunNameTheFlakyStepsOfOneRun() async throws {
        let scratch = try Scratch()
        let suites = try Self.writeSuites(in: scratch)
        let server = try HTTPServer(handler: Flipping())
        try server.start()
        defer { server.stop() }
        let common = ["run", "--no-color", "--target", server.baseURL, "--repeat", "2", suites]
        let kinds = ShardMergeTests.kinds
        let whole = await conformInProcess(
            common + kinds.flatMap { ["--report", "\($0):\(scratch.path("whole.\($0)"))"] })
        #expect(whole.code == 1, "\(whole.out)\(whole.err)")
        #expect(whole.out.contains("Flaky (the verdict changed):"))
        #expect(whole.out.contains("~ alpha › main › 2. flips: pass 1, fail 1"), "\(whole.out)")
        var files: [String] = []
        var flakyPerShard: [Int] = []
        for index in 1...2 {
            let file = scratch.path("shard-\(index).json")
            let shard = await conformInProcess(common + ["--shard", "\(index)/2", "--report", "json:\(file)"])
            #expect(shard.code == 1, "\(shard.out)\(shard.err)")
            let report = try RunReport.read(try Data(contentsOf: URL(fileURLWithPath: file)), source: file)
            #expect(report.result.repetitions == 2)
            flakyPerShard.append(report.result.flaky.count)
            files.append(file)
        }
        #expect(flakyPerShard.allSatisfy { $0 > 0 }, "both shards hold a flaky step: \(flakyPerShard)")
        #expect(flakyPerShard.reduce(0, +) == Self.suiteIDs.count - 1)
        let merged = await conformInProcess(
            ["merge", "--no-color"] + files.reversed()
                + kinds.flatMap { ["--report", "\($0):\(scratch.path("merged.\($0)"))"] })
        #expect(merged.code == whole.code, "\(merged.out)\(merged.err)")
        #expect(merged.err.isEmpty)
        #expect(Self.masked(merged.out) == Self.masked(whole.out))
        for kind in kinds {
            let a = Self.masked(try String(contentsOfFile: scratch.path("whole.\(kind)"), encoding: .utf8))
            let b = Self.masked(try String(contentsOfFile: scratch.path("merged.\(kind)"), encoding: .utf8))
            #expect(a == b, "the merged \(kind) report differs from the unsharded one")
        }
        let json = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: scratch.path("merged.json"))))
        #expect(json["repetitions"] == .int(2))
        #expect(
            json["flaky"]?.arrayValue?.compactMap { $0["suite"]?.stringValue } == Array(Self.suiteIDs.dropLast()))
    }
}
