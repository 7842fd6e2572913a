import ConformCore
import ConformTestSupport
import Foundation
import Testing

@testable import ConformTraffic

/// The writer and the reader agree on one line limit; what does not fit is kept bounded and marked, and a torn
/// last line is reported and never glued to.
@Suite struct RecordingBoundsTests {
    func write(_ dir: String, limit: Int, bodies: [Int]) throws {
        let writer = try RecordingWriter(directory: dir, redaction: .disabled, maxLineBytes: limit)
        for (i, size) in bodies.enumerated() {
            try writer.append(
                upstream: "mobile", request: HTTPRequest(method: .get, url: "/mobile/1/x/\(i)"),
                response: HTTPResponse(status: 200, body: Data(repeating: 0x61, count: size)), startedAt: Date(),
                durationMs: 1)
        }
        writer.close()
    }

    @Test func anExchangeOverTheLineLimitIsStoredBoundedAndMarked() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try write(dir, limit: 4096, bodies: [100, 100_000, 100])
        let reader = try RecordingReader(path: dir, maxLineBytes: 4096)
        var all: [RecordedExchange] = []
        while let e = try reader.next() { all.append(e) }
        #expect(all.map(\.seq) == [1, 2, 3])
        #expect(all[0].omitted.isEmpty && all[2].omitted.isEmpty)
        #expect(all[2].response.body.count == 100)
        #expect(all[1].response.body.isEmpty)
        #expect(all[1].omitted == ["response.body: 100000 bytes, over the recording line limit of 4096"])
        #expect(all[1].response.status == 200)
    }

    @Test func linesWrittenWithTheDefaultLimitAreReadWithIt() {
        let huge = exchange(url: "/mobile/1/x", responseBody: String(repeating: "é", count: 100))
        let line = huge.boundedJSONLine(limit: RecordingLayout.maxLineBytes)
        #expect(line == huge.jsonLine())
        var headers = huge
        headers.response.headerFields = ["X-Big": String(repeating: "h", count: 5000)]
        let cut = headers.boundedJSONLine(limit: 2048)
        #expect(cut.utf8.count <= 2048)
        let read = try? RecordedExchange(jsonLine: Array(cut.utf8.dropLast()))
        #expect(read?.omitted.count == 2, "\(cut)")
    }

    @Test func aTornLastLineIsReportedAndAppendDoesNotGlueOntoIt() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try write(dir, limit: RecordingLayout.maxLineBytes, bodies: [10, 10])
        let file = dir + "/exchanges.jsonl"
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"seq":3,"flow":"f","upstr"#.utf8))
        try handle.close()

        let reader = try RecordingReader(path: dir)
        var count = 0
        while try reader.next() != nil { count += 1 }
        #expect(count == 2)
        #expect(reader.truncatedTail?.line == 3)

        let writer = try RecordingWriter(directory: dir, redaction: .disabled, append: true)
        #expect(writer.droppedTail?.message.contains("removed before appending") == true)
        try writer.append(
            upstream: "mobile", request: HTTPRequest(method: .get, url: "/after"), response: HTTPResponse(status: 204),
            startedAt: Date(), durationMs: 1)
        writer.close()
        let all = try readAll(dir)
        #expect(all.map(\.seq) == [1, 2, 3])
        #expect(all.last?.request.url == "/after")
    }

    @Test func aCompleteLastLineWithoutNewlineIsKeptAndEnded() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try write(dir, limit: RecordingLayout.maxLineBytes, bodies: [10])
        let file = dir + "/exchanges.jsonl"
        var text = try String(contentsOfFile: file, encoding: .utf8)
        text.removeLast()
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let writer = try RecordingWriter(directory: dir, redaction: .disabled, append: true)
        #expect(writer.droppedTail == nil)
        try writer.append(
            upstream: "mobile", request: HTTPRequest(method: .get, url: "/after"), response: HTTPResponse(status: 204),
            startedAt: Date(), durationMs: 1)
        writer.close()
        #expect(try readAll(dir).map(\.seq) == [1, 2])
    }
}
