import ConformCLI
import ConformCore
import ConformReport
import ConformRunner
import ConformServer
import Foundation
import Synchronization
import Testing

/// `conform replay --speed` and `--rate` against a server that stamps each request as it arrives. Only lower bounds
/// are asserted (a request may never come before its schedule); how late it comes depends on the machine.
@Suite struct ReplayPaceTests {
    /// Answers `{}` and notes when each request arrived, by path.
    final class StampingHandler: HTTPHandler {
        let stamps = Mutex<[(path: String, at: ContinuousClock.Instant)]>([])
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            let now = ContinuousClock.now
            stamps.withLock { $0.append((request.path, now)) }
            return .json(200, [:])
        }
    }

    /// A recording of exchanges `/e/0`, `/e/1`, … started at the given offsets (milliseconds), of one device unless
    /// `flows` names each exchange's.
    static func recording(offsets: [Int], flows: [String]? = nil) -> String {
        let base = Date(timeIntervalSince1970: 1_767_600_000)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return offsets.enumerated().map { i, ms in
            let at = formatter.string(from: base.addingTimeInterval(Double(ms) / 1000))
            return
                #"{"seq":\#(i + 1),"flow":"\#(flows?[i] ?? "device-1")","upstream":"mobile","startedAt":"\#(at)","durationMs":1,"request":{"method":"GET","url":"http://mobile.conform.invalid/e/\#(i)","headers":[],"body":""},"response":{"status":200,"headers":[["Content-Type","application/json"],["Content-Length","2"]],"body":"{}"}}"#
        }.joined(separator: "\n") + "\n"
    }

    /// Replays `offsets` with `pace` and returns each request's arrival, in seconds after the replay was started.
    func replay(
        offsets: [Int], flows: [String]? = nil, pace: [String], sent: [Int]? = nil, terminal: Bool? = nil
    ) async throws -> (arrivals: [Double], out: String, code: Int32, err: String) {
        let scratch = try Scratch()
        let file = scratch.path("paced.jsonl")
        try Data(Self.recording(offsets: offsets, flows: flows).utf8).write(to: URL(fileURLWithPath: file))
        let handler = StampingHandler()
        let server = try HTTPServer(handler: handler)
        try server.start()
        defer { server.stop() }
        let out = MemorySink()
        let err = MemorySink()
        let io = CommandIO(
            out: out, err: err, color: false, interactive: terminal ?? false, environment: [:],
            currentDirectory: scratch.url.path)
        let started = ContinuousClock.now
        let code = await ConformCommand.main(
            ["conform", "replay", file, "--target", server.baseURL] + (terminal == nil ? ["--quiet"] : []) + pace,
            io: io)
        let stamps = handler.stamps.withLock { $0 }
        #expect(stamps.map(\.path) == (sent ?? Array(offsets.indices)).map { "/e/\($0)" }, "requests came out of order")
        let arrivals = stamps.map { stamp -> Double in
            let d = stamp.at - started
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
        return (arrivals, out.text + err.text, code, err.text)
    }

    @Test func halfSpeedKeepsTheRecordedGapsTwiceAsLong() async throws {
        let offsets = [0, 300, 800, 1000]
        let result = try await replay(offsets: offsets, pace: ["--speed", "0.5"])
        #expect(result.code == 0, "\(result.out)")
        // No request goes out before its place in the schedule: twice its recorded offset after the start.
        for (arrival, offset) in zip(result.arrivals, offsets) {
            #expect(arrival >= 2 * Double(offset) / 1000, "a request came \(arrival) s in, due at \(2 * offset) ms")
        }
        #expect(result.out.contains("Pace: the recorded pace ×0.5; reached "))
        #expect(result.out.contains("Latency: p50 "))
        #expect(result.out.contains("Behind schedule: p50 "))
        #expect(result.out.hasSuffix("Result: SAME BEHAVIOUR\n"))
    }

    @Test func aFixedRateSpacesRequestsEvenlyWhateverTheRecording() async throws {
        // Recorded all at once; sent at 10 per second: the i-th no sooner than i × 100 ms in.
        let result = try await replay(offsets: [0, 0, 0, 0, 0], pace: ["--rate", "10/s"])
        #expect(result.code == 0, "\(result.out)")
        for (i, arrival) in result.arrivals.enumerated() {
            #expect(arrival >= Double(i) * 0.1, "request \(i) came \(arrival) s in, due at \(i * 100) ms")
        }
        #expect(result.out.contains("Pace: 10/s; reached "))
    }

    /// A shard keeps the recording's schedule: its first exchange, recorded 400 ms after the recording's first (sent
    /// by the other shard), goes out no sooner than 400 ms in.
    @Test func aShardKeepsTheWholeRecordingsSchedule() async throws {
        let names = (0..<64).map { "device-\($0)" }
        let first = try #require(names.first { Shard.shardIndex(of: "flow:" + $0, count: 2) == 1 })
        let second = try #require(names.first { Shard.shardIndex(of: "flow:" + $0, count: 2) == 2 })
        let result = try await replay(
            offsets: [0, 400], flows: [first, second], pace: ["--speed", "1", "--shard", "2/2"], sent: [1])
        #expect(result.code == 0, "\(result.out)")
        #expect(result.arrivals.count == 1 && result.arrivals[0] >= 0.4, "\(result.arrivals)")
        #expect(result.out.contains("Shard 2/2: 1 of 2 groups"))
    }

    /// A slow replay shows its progress on a terminal (at least every quarter second), and nowhere else.
    @Test func progressShowsOnATerminalOnly() async throws {
        let shown = try await replay(offsets: [0, 0, 0, 0, 0], pace: ["--rate", "10/s"], terminal: true)
        #expect(shown.code == 0, "\(shown.out)")
        #expect(shown.err.contains(" exchanges replayed"), "\(shown.err)")
        #expect(shown.err.hasSuffix("\r\u{1B}[K"))
        let piped = try await replay(offsets: [0, 0, 0, 0, 0], pace: ["--rate", "10/s"], terminal: false)
        #expect(piped.code == 0, "\(piped.out)")
        #expect(piped.err.isEmpty)
    }

    @Test func atMaximumSpeedNoScheduleIsKeptOrReported() async throws {
        let result = try await replay(offsets: [0, 60_000], pace: ["--speed", "max"])
        #expect(result.code == 0, "\(result.out)")
        #expect(!result.out.contains("Pace:"))
        // A minute apart in the recording, but sent one after the other (a liveness bound, not a timing one).
        #expect(result.arrivals.count == 2 && result.arrivals[1] < 30)
    }

    @Test(arguments: [
        ["--speed", "0"], ["--speed", "-2"], ["--speed", "nan"], ["--speed", "1e400"], ["--speed", "20000"],
        ["--rate", "0/s"], ["--rate", "fast"], ["--rate", "inf"], ["--rate", "5/m"], ["--rate", "2000000"],
        ["--speed", "2", "--rate", "3"], ["--shard", "0/2"], ["--shard", "3/2"], ["--shard", "1/0"],
    ])
    func hostilePaceAndShardValuesAreUsageErrors(args: [String]) async {
        let out = MemorySink()
        let err = MemorySink()
        let io = CommandIO(out: out, err: err, color: false, environment: [:], currentDirectory: "/")
        let code = await ConformCommand.main(["conform", "replay", "r.jsonl"] + args, io: io)
        #expect(code == 64)
        #expect(err.text.hasPrefix("Error: --"), "\(err.text)")
        #expect(err.text.contains("See 'conform replay --help'"))
    }
}
