import ConformCore
import ConformTestSupport
import Foundation
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// What bounds the memory of reading a trace: values per recording line and HAR entry, and the size of a body
/// parsed as JSON.
@Suite struct ParsedSizeTests {
    @Test func theParserCountsValuesAndSaysWhenItStopsForALimit() throws {
        #expect(try JSONValue.parse(Data("[1,[2,{\"a\":3}]]".utf8), maxValues: 6) == [1, [2, ["a": 3]]])
        #expect {
            try JSONValue.parse(Data("[1,[2,{\"a\":3}]]".utf8), maxValues: 5)
        } throws: { error in
            (error as? JSONParseError)?.isLimit == true && "\(error)".contains("more than 5 values")
        }
        #expect {
            try JSONValue.parse(Data("[1,".utf8), maxValues: 4)
        } throws: { error in
            (error as? JSONParseError)?.isLimit == false
        }
    }

    /// A line of more values than a written line can hold is skipped and reported; the lines around it are read.
    @Test func aLineOfTooManyValuesIsSkippedAndReported() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = exchange(seq: 1, url: "/mobile/1/a").jsonLine()
        let crowded =
            String(exchange(seq: 2, url: "/mobile/1/b").jsonLine().dropLast(2)) + ",\"x\":["
            + Array(repeating: "{}", count: RecordingLayout.maxLineValues).joined(separator: ",") + "]}\n"
        let last = exchange(seq: 3, url: "/mobile/1/c").jsonLine()
        try Data((good + crowded + last).utf8).write(to: URL(fileURLWithPath: dir + "/exchanges.jsonl"))
        let reader = try RecordingReader(path: dir)
        var seqs: [Int] = []
        while let e = try reader.next() { seqs.append(e.seq) }
        #expect(seqs == [1, 3])
        #expect(reader.skipped.count == 1)
        let warning = try #require(reader.skipped.first).warning
        #expect(warning.contains("exchanges.jsonl:2:"))
        #expect(warning.contains("warning: exchange skipped: more than 200000 values"))
    }

    /// A HAR entry is parsed with the same kind of bound: over it, the entry is skipped and named with its place.
    @Test func aHAREntryOfTooManyValuesIsSkippedWithItsPosition() throws {
        let crowded = Array(repeating: "{}", count: 200_001).joined(separator: ",")
        let har = #"{"log":{"entries":[{"request":{"method":"GET","url":"http://h/mobile/1/x","x":[\#(crowded)]}}]}}"#
        let document = try HARDocument(Data(har.utf8), file: "t.har")
        #expect(document.readable.isEmpty)
        let problem = try #require(document.skipped.first)
        #expect("\(problem)".contains("t.har:1:") && "\(problem)".contains("more than 200000 values"))
    }

    /// A JSON body over the parsed size is compared byte for byte: one `body` difference, never a tree.
    @Test func aBodyOverTheParsedSizeIsComparedAsBytes() throws {
        let items = JSONValue.maxParsedBodyBytes / 8 + 1
        let recorded = "[" + Array(repeating: #"{"a":1}"#, count: items).joined(separator: ",") + "]"
        let live = "[" + Array(repeating: #"{"a":2}"#, count: items).joined(separator: ",") + "]"
        #expect(recorded.utf8.count > JSONValue.maxParsedBodyBytes)
        #expect(JSONValue.parsedBody(Data(recorded.utf8)) == nil)
        #expect(JSONValue.parsedBody(Data(#"{"a":1}"#.utf8)) == ["a": 1])
        let differences = ResponseDiff.compare(
            expected: HTTPResponse(status: 200, body: Data(recorded.utf8)),
            actual: HTTPResponse(status: 200, body: Data(live.utf8)), noise: .default)
        #expect(differences.map(\.path) == ["body"])
        let small = ResponseDiff.compare(
            expected: HTTPResponse(status: 200, body: Data(#"[{"a":1}]"#.utf8)),
            actual: HTTPResponse(status: 200, body: Data(#"[{"a":2}]"#.utf8)), noise: .default)
        #expect(small.map(\.path) == ["$[0].a"])
    }
}
