import ConformCore
import ConformTestSupport
import Foundation
import Testing

@testable import ConformTraffic

/// An append numbers after the largest number in the file, found by a scan of the line starts that never parses the
/// writer's own lines; lines written otherwise are parsed whole.
@Suite struct AppendNumberingTests {
    func exchange(_ seq: Int, body: Int = 10) -> RecordedExchange {
        RecordedExchange(
            seq: seq, flow: "f", upstream: "mobile", startedAt: Date(timeIntervalSince1970: 0), durationMs: 1,
            request: HTTPRequest(method: .get, url: "/mobile/1/x/\(seq)"),
            response: HTTPResponse(status: 200, body: Data(repeating: 0x61, count: body)))
    }

    @Test func theNumberIsReadFromTheLineStart() {
        #expect(NumberingScan.number(Array(#"{"seq":12,"flow":"f"}"#.utf8)[...]) == 12)
        #expect(NumberingScan.number(Array(#"{"seq":12a,"flow":"f"}"#.utf8)[...]) == nil)
        #expect(NumberingScan.number(Array(#"{"seq":,"#.utf8)[...]) == nil)
        #expect(NumberingScan.number(Array(#"{"flow":"f","seq":12}"#.utf8)[...]) == nil)
        #expect(NumberingScan.number(Array(#"{"seq":12"#.utf8)[...]) == nil, "no comma: not the writer's line")
    }

    @Test func numberingGoesOnAfterTheLargestWhereverAndHoweverItIsWritten() throws {
        let scratch = try Scratch("append-numbering")
        let dir = scratch.path("r")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // A line written with its number last, larger than every other; a line across the scan's 1 MiB blocks; a
        // blank line; an app event; a line that does not read (its number is not counted).
        let reordered = exchange(40).jsonLine()
        let moved = "{" + reordered.dropFirst(#"{"seq":40,"#.count).dropLast(2) + #","seq":40}"# + "\n"
        let text =
            exchange(5).jsonLine() + exchange(9, body: 1_500_000).jsonLine() + moved + "   \n"
            + #"{"seq":12,"event":"logout","at":"2026-01-05T08:00:00Z"}"# + "\n" + #"{"flow":"x","seq":900}"# + "\n"
            + exchange(7).jsonLine()
        try text.write(toFile: dir + "/exchanges.jsonl", atomically: true, encoding: .utf8)
        #expect(try RecordedExchange(jsonLine: Array(moved.utf8.dropLast())).seq == 40)

        let writer = try RecordingWriter(directory: dir, redaction: .disabled, append: true)
        #expect(writer.droppedTail == nil)
        let written = try writer.append(
            upstream: "mobile", request: HTTPRequest(method: .get, url: "/after"), response: HTTPResponse(status: 204),
            startedAt: Date(), durationMs: 1)
        writer.close()
        #expect(written.seq == 41)
        #expect(try readAll(dir).last?.seq == 41)
    }
}
