import ConformCore
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@testable import ConformReplay
@testable import ConformTraffic

@Suite struct RecordingWriterTests {
    /// A line made under an expected number is renumbered in place only when the numbers have as many digits, so a
    /// line bounded to the limit stays within it; otherwise the writer makes the line again.
    @Test func aLineIsRenumberedOnlyWhenItKeepsItsLength() {
        let line = "{\"seq\":7,\"flow\":\"a\"}\n"
        #expect(RecordingWriter.renumbered(line, from: 7, to: 8) == "{\"seq\":8,\"flow\":\"a\"}\n")
        #expect(RecordingWriter.renumbered(line, from: 7, to: 10) == nil)
        #expect(RecordingWriter.renumbered(line, from: 6, to: 8) == nil, "the line does not carry the expected number")
        let exchange = RecordedExchange(
            seq: 99, flow: "f", upstream: "mobile", startedAt: Date(timeIntervalSince1970: 0), durationMs: 1,
            request: HTTPRequest(method: .post, url: "/x", body: Data(String(repeating: "b", count: 900).utf8)),
            response: HTTPResponse(status: 200))
        let bounded = exchange.boundedJSONLine(limit: 600)
        #expect(RecordingWriter.renumbered(bounded, from: 99, to: 42)?.utf8.count == bounded.utf8.count)
    }

    @Test func concurrentWritersLoseAndMixNothing() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir, redaction: .disabled)
        let tasks = 48
        let perTask = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<tasks {
                group.addTask {
                    for i in 0..<perTask {
                        let id = "\(t)-\(i)"
                        var body = Data(
                            "{\"id\":\"\(id)\",\"pad\":\"\(String(repeating: "x", count: (t * 131 + i) % 5000))\"}".utf8
                        )
                        if i % 7 == 0 { body = Data([0xFF, UInt8(t), UInt8(i), 0x00]) + Data(id.utf8) }
                        try writer.append(
                            upstream: "mobile",
                            request: HTTPRequest(
                                method: .post, url: "/mobile/1/appinstance/\(id)/user", headerFields: ["X-Id": id],
                                body: body),
                            response: HTTPResponse(status: 200, headerFields: ["X-Id": id], body: body + Data(id.utf8)),
                            startedAt: Date(), durationMs: 0.25)
                    }
                }
            }
            try await group.waitForAll()
        }
        writer.close()
        let all = try readAll(dir)
        #expect(all.count == tasks * perTask)
        #expect(all.map(\.seq) == Array(1...(tasks * perTask)))
        var seen = Set<String>()
        for e in all {
            let id = try #require(e.request.headerFields["X-Id"])
            seen.insert(id)
            #expect(e.response.headerFields["X-Id"] == id)
            #expect(e.request.url == "/mobile/1/appinstance/\(id)/user")
            #expect(e.response.body == e.request.body + Data(id.utf8))
            let parts = id.split(separator: "-").compactMap { Int($0) }
            if parts[1] % 7 == 0 {
                #expect(e.request.body == Data([0xFF, UInt8(parts[0]), UInt8(parts[1]), 0x00]) + Data(id.utf8))
            }
        }
        #expect(seen.count == tasks * perTask)
    }

    @Test func tornLastLineIsSkippedAndReported() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir, redaction: .disabled)
        for i in 0..<3 {
            try writer.append(
                upstream: "mobile", request: HTTPRequest(method: .get, url: "/r/\(i)"), response: .empty(204),
                startedAt: Date(), durationMs: 1)
        }
        writer.close()
        let file = dir + "/exchanges.jsonl"
        let full = try Data(contentsOf: URL(fileURLWithPath: file))
        let lastLine = exchange(seq: 4, url: "/torn", body: "{\"a\":1}").jsonLine()
        // Cut the fourth line at every byte: the first three always survive.
        for cut in 1..<lastLine.utf8.count {
            try (full + Data(lastLine.utf8.prefix(cut))).write(to: URL(fileURLWithPath: file))
            let reader = try RecordingReader(path: dir)
            var count = 0
            while try reader.next() != nil { count += 1 }
            if cut == lastLine.utf8.count - 1 {
                // Everything but the newline: still a complete exchange.
                #expect(count == 4)
                #expect(reader.truncatedTail == nil)
            } else {
                #expect(count == 3, "cut at \(cut)")
                let tail = try #require(reader.truncatedTail)
                #expect(tail.line == 4)
                #expect(tail.description.hasPrefix("\(file):4:1: error: the last line is incomplete"))
            }
        }
    }

    @Test func appendingContinuesNumbering() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let w = try RecordingWriter(directory: dir)
            try w.append(
                upstream: "m", request: HTTPRequest(method: .get, url: "/a"), response: .empty(200), startedAt: Date(),
                durationMs: 1)
        }
        #expect(throws: RecordingError.self) { try RecordingWriter(directory: dir) }
        let w = try RecordingWriter(directory: dir, append: true)
        let e = try w.append(
            upstream: "m", request: HTTPRequest(method: .get, url: "/b"), response: .empty(200), startedAt: Date(),
            durationMs: 1)
        #expect(e.seq == 2)
        let meta = try RecordingMeta.load(directory: dir)
        #expect(meta.version == 1)
        #expect(meta.redacted)
    }

    @Test func malformedMiddleLineIsSkippedAndNamedWithFileLineAndColumn() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/exchanges.jsonl"
        let good = exchange(url: "/a").jsonLine()
        try Data((good + "{\"seq\": 2,, }\n" + good).utf8).write(to: URL(fileURLWithPath: file))
        let reader = try RecordingReader(path: file)
        var met: [RecordingError] = []
        reader.onSkipped = { met.append($0) }
        var read: [RecordedExchange] = []
        while let exchange = try reader.next() { read.append(exchange) }
        #expect(read.count == 2)
        #expect(reader.skippedCount == 1)
        #expect(met == reader.skipped)
        let problem = try #require(reader.skipped.first)
        #expect(problem.warning.hasPrefix("\(file):2:11: warning: invalid exchange"))
        #expect(problem.description.contains("this line is skipped"))
    }

    /// One request the recorder should never have written (an invalid method, header name, or a control byte in
    /// its URL) is skipped and named; the exchanges around it are still read, replayed and checked.
    @Test(arguments: [
        #"{"method":"G ET","url":"/x"}"#, #"{"method":"GET","url":"/x","headers":[["Bad Name","v"]]}"#,
        #"{"method":"GET","url":"/x\u001b[2J"}"#, #"{"method":"GET","url":"@127.0.0.1:9/x"}"#,
    ])
    func aBadRequestLineDoesNotPoisonTheRecording(request: String) async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/exchanges.jsonl"
        let good = exchange(url: "/a").jsonLine()
        let bad =
            #"{"seq":2,"flow":"f","upstream":"mobile","startedAt":"2026-01-05T08:00:00.000Z","durationMs":1,"request":"#
            + request + #","response":{"status":200}}"# + "\n"
        try Data((good + bad + good).utf8).write(to: URL(fileURLWithPath: file))
        let reader = try RecordingReader(path: file)
        var read: [RecordedExchange] = []
        while let exchange = try reader.next() { read.append(exchange) }
        #expect(read.count == 2)
        #expect(reader.skipped.map(\.line) == [2])
        let summary = try await Replayer(transport: InProcessTransport(EchoHandler())).replay(try Trace.open(dir))
        #expect(summary.total == 2)
        #expect(summary.unreadable == 1)
        #expect(!summary.allPassed)
    }

    struct EchoHandler: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse { .empty(200) }
    }

    @Test func asyncSequenceReadsLazily() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let w = try RecordingWriter(directory: dir)
        for i in 0..<10 {
            try w.append(
                upstream: "m", request: HTTPRequest(method: .get, url: "/\(i)"), response: .empty(200),
                startedAt: Date(), durationMs: 1)
        }
        var urls: [String] = []
        for try await e in try Trace.open(dir).exchanges() { urls.append(e.request.url) }
        #expect(urls == (0..<10).map { "/\($0)" })
    }

    @Test func exchangesAreTheRecordsWithoutTheAppEventsAndTheTornTailIsReportedOnce() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let w = try RecordingWriter(directory: dir)
        for i in 0..<4 {
            if i % 2 == 1 { _ = try w.append(event: AppEvent(kind: .logout, at: Date())) }
            try w.append(
                upstream: "m", request: HTTPRequest(method: .get, url: "/\(i)"), response: .empty(200),
                startedAt: Date(), durationMs: 1)
        }
        let handle = try #require(FileHandle(forWritingAtPath: dir + "/exchanges.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"seq":99,"flow""#.utf8))
        try handle.close()
        var records: [Int] = []
        for try await record in try Trace.open(dir).records() { records.append(record.seq) }
        #expect(records == [1, 2, 3, 4, 5, 6])
        let tails = Mutex(0)
        var urls: [String] = []
        let exchanges = try Trace.open(dir).exchanges { warning in
            if warning.kind == .tornTail { tails.withLock { $0 += 1 } }
        }
        for try await e in exchanges { urls.append(e.request.url) }
        #expect(urls == ["/0", "/1", "/2", "/3"])
        #expect(tails.withLock { $0 } == 1)
        #expect(exchanges.tally.tornTail)
        #expect(exchanges.tally.unreadable == 0, "a torn last line is no record lost")
    }
}
