import ConformCore
import ConformTraffic
import Foundation
import Testing

/// An exchange imported from a capture after resynchronising says so in its recording line and in a HAR, and reads
/// back the same; an exchange that was not has no such key.
struct ResynchronisedRecordingTests {
    func exchange(resynchronised: Bool) -> RecordedExchange {
        var e = RecordedExchange(
            seq: 1, flow: "dev", upstream: "mobile", startedAt: Date(timeIntervalSince1970: 0), durationMs: 1,
            request: HTTPRequest(method: .get, url: "/mobile/1/x"), response: HTTPResponse(status: 200))
        e.resynchronised = resynchronised
        return e
    }

    @Test func theFlagIsWrittenOnlyWhenSetAndReadBack() throws {
        let marked = exchange(resynchronised: true).jsonLine()
        #expect(marked.hasSuffix(#""response":{"status":200,"headers":[]},"resynchronised":true}"# + "\n"), "\(marked)")
        #expect(try RecordedExchange(jsonLine: Array(marked.utf8)).resynchronised)
        let plain = exchange(resynchronised: false).jsonLine()
        #expect(!plain.contains("resynchronised"))
        #expect(try !RecordedExchange(jsonLine: Array(plain.utf8)).resynchronised)
        let wrong = marked.replacingOccurrences(of: #""resynchronised":true"#, with: #""resynchronised":"yes""#)
        #expect {
            _ = try RecordedExchange(jsonLine: Array(wrong.utf8))
        } throws: { error in
            "\(error)".contains("$.resynchronised") && "\(error)".contains("expected true or false")
        }
    }

    @Test func aHARKeepsTheFlag() throws {
        let har = HAR.export([exchange(resynchronised: true)])
        #expect(String(decoding: har, as: UTF8.self).contains(#""resynchronised":true"#))
        #expect(try importedHAR(har).first?.resynchronised == true)
        #expect(try importedHAR(HAR.export([exchange(resynchronised: false)])).first?.resynchronised == false)
    }

    @Test func theWriterWritesIt() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("resync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let writer = try RecordingWriter(directory: scratch.path, redaction: .disabled)
        let written = try writer.append(
            upstream: "mobile", request: HTTPRequest(method: .get, url: "/mobile/1/x"),
            response: HTTPResponse(status: 200), startedAt: Date(timeIntervalSince1970: 0), durationMs: 1,
            resynchronised: true)
        writer.close()
        #expect(written.resynchronised)
        let text = try String(contentsOf: scratch.appendingPathComponent("exchanges.jsonl"), encoding: .utf8)
        #expect(text.contains(#","resynchronised":true}"#))
    }
}
