import ConformCore
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

/// A trace copied into a recording and out as HAR carries every exchange and app event; an export that fails
/// leaves no file behind, and a trace that cannot be read leaves no recording.
@Suite struct TraceCopyTests {
    func recording(in scratch: Scratch) throws -> String {
        let directory = scratch.url.appendingPathComponent("source").path
        let writer = try RecordingWriter(directory: directory, redaction: .disabled)
        for i in 0..<3 {
            try writer.append(
                upstream: "mobile", request: HTTPRequest(method: .get, url: "/r/\(i)"), response: .empty(204),
                startedAt: Date(), durationMs: 1)
        }
        try writer.append(event: AppEvent(kind: .login, at: Date(), externalUserId: "u-1"))
        writer.close()
        return directory
    }

    @Test func aCopyAndAnExportCarryEveryRecord() async throws {
        let scratch = try Scratch("trace-copy")
        let source = try Trace.open(try recording(in: scratch))
        let copy = scratch.url.appendingPathComponent("copy").path
        let copied = try source.copy(into: { try RecordingWriter(directory: copy, redaction: .disabled) })
        #expect(copied == Trace.Copied(exchanges: 3, events: 1))
        let har = scratch.url.appendingPathComponent("out.har").path
        var printed = ""
        let exported = try Trace.open(copy).exportHAR(to: har, version: "test") { printed += $0 }
        #expect(exported == copied)
        #expect(printed.isEmpty)
        let entries = try await Trace.open(har).exchanges().all()
        #expect(entries.map(\.request.url).map { URLParts($0).target } == ["/r/0", "/r/1", "/r/2"])
        // Without a path the document goes to standard output, whole.
        _ = try Trace.open(copy).exportHAR(to: nil, version: "test") { printed += $0 }
        #expect(printed == (try String(contentsOfFile: har, encoding: .utf8)))
    }

    @Test func aFailedExportLeavesNoFile() throws {
        let scratch = try Scratch("trace-export-fails")
        let source = try Trace.open(try recording(in: scratch))
        let missing = scratch.url.appendingPathComponent("no-such-directory/out.har").path
        #expect(throws: RecordingError.self) { try source.exportHAR(to: missing, version: "test") { _ in } }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted() == ["source"])
    }
}
