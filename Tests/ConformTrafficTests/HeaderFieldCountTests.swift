import ConformCore
import ConformMobileMessaging
import ConformTestSupport
import Foundation
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// Many header fields in one message: compared in linear time, and capped at `HTTPFields.maxCount` by every reader.
@Suite struct HeaderFieldCountTests {
    static func fields(_ count: Int, prefix: String) -> HTTPFields {
        HTTPFields((0..<count).map { HTTPFields.Field(name: "\(prefix)-\($0)", value: "v\($0)") })
    }

    /// Answers every request with the same fields.
    struct FixedFields: HTTPHandler {
        var fields: HTTPFields
        func handle(_ request: HTTPRequest) -> HTTPResponse { HTTPResponse(status: 200, headerFields: fields) }
    }

    /// One exchange of 200,000 fields on each side is compared in one pass: every field missing on one side is one
    /// mismatch. Comparing each name against every other took hours at this size; the limit only stops a hang.
    @Test(.timeLimit(.minutes(2))) func aComparisonOfManyFieldsIsLinear() async throws {
        let count = 200_000
        let recorded = HTTPResponse(status: 200, headerFields: Self.fields(count, prefix: "X-Recorded"))
        let live = HTTPResponse(status: 200, headerFields: Self.fields(count, prefix: "X-Live"))
        let mismatches = ResponseDiff.compare(expected: recorded, actual: live, noise: .default)
        #expect(mismatches.count == 2 * count)
        #expect(
            mismatches.first?.description
                == ResponseDiff.compare(
                    expected: HTTPResponse(status: 200, headerFields: ["X-Recorded-0": "v0"]),
                    actual: HTTPResponse(status: 200), noise: .default
                ).first?.description)
        // Through the replayer too, with the same fields on both sides: it matches.
        var exchange = exchange(url: "/mobile/1/x", responseHeaders: Self.fields(count, prefix: "X-Same"))
        exchange.request.headerFields = Self.fields(count, prefix: "X-Sent")
        let summary = try await Replayer(
            transport: InProcessTransport(FixedFields(fields: Self.fields(count, prefix: "X-Same"))),
            options: ReplayOptions(profile: .mobileMessaging)
        ).replay([exchange])
        #expect(summary.passed == 1)
    }

    @Test func duplicatesAndCaseKeepTheirMeaning() {
        let expected = HTTPResponse(status: 200, headerFields: ["Set-Cookie": "a", "set-cookie": "b", "X-A": "1"])
        let same = HTTPResponse(status: 200, headerFields: ["SET-COOKIE": "a", "Set-Cookie": "b", "x-a": "1"])
        let swapped = HTTPResponse(status: 200, headerFields: ["Set-Cookie": "b", "Set-Cookie": "a", "X-A": "1"])
        #expect(ResponseDiff.compare(expected: expected, actual: same, noise: .default).isEmpty)
        let differences = ResponseDiff.compare(expected: expected, actual: swapped, noise: .default)
        #expect(differences.count == 1)
        #expect(differences.first?.path == "header Set-Cookie")
        #expect(differences.first?.expected == "a, b")
        #expect(differences.first?.actual == "b, a")
    }

    /// A recording line over the cap is read without that field list and marked, so it is never judged; a message
    /// at the cap reads whole. The writer leaves such a list out the same way.
    @Test func aRecordingLineOverTheCapIsReadMarked() async throws {
        let cap = HTTPFields.maxCount
        var over = exchange(seq: 2, url: "/mobile/1/x", responseHeaders: Self.fields(cap + 1, prefix: "X-R"))
        over.request.headerFields = Self.fields(cap, prefix: "X-Q")
        let read = try RecordedExchange(jsonLine: Array(over.jsonLine().utf8.dropLast()))
        #expect(read.request.headerFields.count == cap)
        #expect(read.response.headerFields.isEmpty)
        #expect(read.response.status == 200)
        #expect(read.omitted == ["response.headers: 1001 fields, more than the 1000 a message may have; left out"])
        let written = over.boundedJSONLine(limit: RecordingLayout.maxLineBytes)
        let again = try RecordedExchange(jsonLine: Array(written.utf8.dropLast()))
        #expect(again == read, "the writer writes what the reader would read")
        // Through the reader and the replayer: reported as not judged, and the other exchanges replay.
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lines = [
            exchange(seq: 1, url: "/mobile/1/a", responseHeaders: [:]).jsonLine(), over.jsonLine(),
            exchange(seq: 3, url: "/mobile/1/b", responseHeaders: [:]).jsonLine(),
        ]
        try Data(lines.joined().utf8).write(to: URL(fileURLWithPath: dir + "/exchanges.jsonl"))
        let all = try readAll(dir)
        #expect(all.map(\.seq) == [1, 2, 3])
        let summary = try await Replayer(
            transport: InProcessTransport(FixedFields(fields: [:])), options: ReplayOptions(profile: .mobileMessaging)
        ).replay(all)
        #expect(summary.total == 3)
        #expect(summary.unjudged == 1)
        #expect(
            summary.mismatches.map(\.description).first?.contains("cannot judge: response.headers: 1001 fields") == true
        )
    }

    /// A HAR entry over the cap is read the same way; the entries around it read whole.
    @Test func aHAREntryOverTheCapIsReadMarked() throws {
        func entry(_ fields: Int) -> String {
            let headers = (0..<fields).map { #"{"name":"X-\#($0)","value":"v"}"# }.joined(separator: ",")
            return #"""
                {"request":{"method":"GET","url":"http://h/mobile/1/x","headers":[\#(headers)]},
                 "response":{"status":200,"headers":[],"content":{"size":0}}}
                """#
        }
        let har = #"{"log":{"entries":[\#(entry(2)),\#(entry(HTTPFields.maxCount + 1)),\#(entry(3))]}}"#
        let document = try HARDocument(Data(har.utf8), file: "t.har")
        #expect(document.count == 3)
        #expect(document.incomplete == [1])
        let marked = try document.exchange(1)
        #expect(marked.request.headerFields.isEmpty)
        #expect(marked.omitted == ["request.headers: 1001 fields, more than the 1000 a message may have; left out"])
        #expect(try document.exchange(2).request.headerFields.count == 3)
    }
}

/// Header fields the same on both sides (ignored ones anywhere, names in any case) are no difference, whether they
/// come in the same order, which is answered without grouping them by name, or in another.
struct ResponseDiffHeaderTests {
    func response(_ fields: [(String, String)]) -> HTTPResponse {
        HTTPResponse(status: 200, headerFields: HTTPFields(fields.map { .init(name: $0.0, value: $0.1) }))
    }

    @Test func theSameFieldsAreNoDifferenceInAnyOrderOrCase() {
        let expected = response([("Date", "a"), ("Content-Type", "application/json"), ("X-A", "1"), ("X-A", "2")])
        let same = response([("content-type", "application/json"), ("Server", "s"), ("x-a", "1"), ("X-A", "2")])
        #expect(ResponseDiff.sameFields(expected.headerFields, same.headerFields, noise: .default))
        #expect(ResponseDiff.compare(expected: expected, actual: same, noise: .default).isEmpty)
        let reordered = response([("X-A", "1"), ("X-A", "2"), ("Content-Type", "application/json")])
        #expect(!ResponseDiff.sameFields(expected.headerFields, reordered.headerFields, noise: .default))
        #expect(ResponseDiff.compare(expected: expected, actual: reordered, noise: .default).isEmpty)
    }

    @Test func aFieldThatDiffersOrIsMissingIsADifference() {
        let expected = response([("Content-Type", "application/json"), ("X-A", "1")])
        let changed = ResponseDiff.compare(
            expected: expected, actual: response([("Content-Type", "application/json"), ("X-A", "2")]),
            noise: .default)
        #expect(changed.map(\.path) == ["header X-A"])
        let missing = ResponseDiff.compare(
            expected: expected, actual: response([("Content-Type", "application/json"), ("Date", "d")]),
            noise: .default)
        #expect(missing.map(\.path) == ["header X-A"])
        #expect(missing.first?.actual == Mismatch.absent)
        let extra = ResponseDiff.compare(
            expected: expected, actual: response([("Content-Type", "application/json"), ("X-A", "1"), ("X-B", "b")]),
            noise: .default)
        #expect(extra.map(\.path) == ["header X-B"])
    }
}
