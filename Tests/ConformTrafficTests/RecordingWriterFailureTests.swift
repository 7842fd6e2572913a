import ConformCore
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@testable import ConformTraffic

#if canImport(Glibc)
    import Glibc
#endif

/// A recording stays readable when the disk fills up, and its files are never written through links.
@Suite struct RecordingWriterFailureTests {
    /// `write(2)` on a disk that has `room` bytes left until `refill()`: a short write, then ENOSPC.
    final class FullDisk: Sendable {
        private let room = Mutex(Int.max)
        func fill(leaving bytes: Int) { room.withLock { $0 = bytes } }
        func refill() { room.withLock { $0 = .max } }

        var output: @Sendable (Int32, UnsafeRawPointer, Int) -> Int {
            { fd, pointer, count in
                let allowed = self.room.withLock { room -> Int in
                    let n = min(room, count)
                    if room != .max { room -= n }
                    return n
                }
                if allowed == 0 {
                    errno = ENOSPC
                    return -1
                }
                return write(fd, pointer, allowed)
            }
        }
    }

    func exchange(_ n: Int, pad: Int = 10) -> (HTTPRequest, HTTPResponse) {
        (
            HTTPRequest(method: .post, url: "/mobile/1/x?n=\(n)", body: Data(String(repeating: "a", count: pad).utf8)),
            HTTPResponse(status: 200, body: Data("{\"n\":\(n)}".utf8))
        )
    }

    @Test func aWriteThatFailsPartWayLeavesNoPartialLine() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let disk = FullDisk()
        let writer = try RecordingWriter(
            directory: dir, redaction: .disabled, append: false, now: Date(),
            maxLineBytes: RecordingLayout.maxLineBytes,
            output: disk.output)
        let (r1, s1) = exchange(1)
        try writer.append(upstream: "mobile", request: r1, response: s1, startedAt: Date(), durationMs: 1)
        disk.fill(leaving: 40)
        let (r2, s2) = exchange(2, pad: 500)
        let error = try #require(throws: RecordingError.self) {
            try writer.append(upstream: "mobile", request: r2, response: s2, startedAt: Date(), durationMs: 1)
        }
        #expect(error.message.contains("No space left on device"))
        #expect(error.message.contains("not recorded"))
        #expect(writer.lostCount == 1)
        // Space returns: the next exchange starts a line of its own.
        disk.refill()
        let (r3, s3) = exchange(3)
        try writer.append(upstream: "mobile", request: r3, response: s3, startedAt: Date(), durationMs: 1)
        writer.close()
        let text = try String(contentsOfFile: dir + "/exchanges.jsonl", encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let reader = try RecordingReader(path: dir)
        var read: [RecordedExchange] = []
        while let e = try reader.next() { read.append(e) }
        #expect(read.map { $0.request.queryValue("n") } == ["1", "3"])
        #expect(reader.truncatedTail == nil)
    }

    @Test func aCutThatFailsIsMadeBeforeTheNextLine() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let disk = FullDisk()
        let writer = try RecordingWriter(
            directory: dir, redaction: .disabled, append: false, now: Date(),
            maxLineBytes: RecordingLayout.maxLineBytes,
            output: disk.output)
        disk.fill(leaving: 0)
        let (r1, s1) = exchange(1)
        #expect(throws: RecordingError.self) {
            try writer.append(upstream: "mobile", request: r1, response: s1, startedAt: Date(), durationMs: 1)
        }
        disk.refill()
        try writer.append(event: AppEvent(kind: .logout, at: Date(), pushRegId: "p"))
        writer.close()
        let reader = try RecordingReader(path: dir)
        var records: [TraceRecord] = []
        while let record = try reader.nextRecord() { records.append(record) }
        #expect(records.count == 1)
        #expect(writer.lostCount == 1)
    }

    @Test(arguments: [RecordingLayout.exchangesFile, RecordingLayout.metaFile])
    func appendingRefusesALinkedRecordingFile(name: String) throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = dir + "/victim.txt"
        try Data("untouched\n".utf8).write(to: URL(fileURLWithPath: victim))
        let recording = dir + "/rec"
        try FileManager.default.createDirectory(atPath: recording, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: recording + "/" + name, withDestinationPath: victim)
        for append in [true, false] {
            let error = try #require(throws: RecordingError.self) {
                _ = try RecordingWriter(directory: recording, redaction: .disabled, append: append)
            }
            #expect(error.message.contains("symbolic link"))
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched\n")
    }

    @Test func aDanglingLinkIsNotCreatedThrough() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recording = dir + "/rec"
        try FileManager.default.createDirectory(atPath: recording, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: recording + "/" + RecordingLayout.exchangesFile, withDestinationPath: dir + "/created-elsewhere")
        #expect(throws: RecordingError.self) {
            _ = try RecordingWriter(directory: recording, redaction: .disabled, append: true)
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/created-elsewhere"))
    }
}
