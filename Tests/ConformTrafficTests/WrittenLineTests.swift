import ConformCore
import Foundation
import Testing

@testable import ConformTraffic

/// Reading a line in the writer's layout without a JSON tree gives the exchange the tree reading gives, and any
/// other line is left to the tree reading, with its errors.
struct WrittenLineTests {
    /// The exchange as the tree reading decodes `line`.
    func treeRead(_ line: [UInt8]) throws -> RecordedExchange {
        try RecordedExchange(json: try JSONValueLine.parse(line))
    }

    func exchange(
        url: String = "/mobile/1/appinstance?x=%20y", requestBody: Data = Data(), responseBody: Data = Data(),
        fields: HTTPFields = ["Content-Type": "application/json"]
    ) -> RecordedExchange {
        RecordedExchange(
            seq: 42, flow: "dev-1", upstream: "mobile", startedAt: Date(timeIntervalSince1970: 1_700_000_000.123),
            durationMs: 3.25, request: HTTPRequest(method: .post, url: url, headerFields: fields, body: requestBody),
            response: HTTPResponse(status: 201, headerFields: fields, body: responseBody))
    }

    @Test func everyLayoutTheWriterWritesReadsAsTheTreeReadsIt() throws {
        var cases = [
            exchange(),
            exchange(
                requestBody: Data("{\"a\":\"quote \\\" slash \\\\ / tab \t newline \n\",\"é\":\"日本 🎉\"}".utf8),
                responseBody: Data(#"{"pushRegId":"abc"}"#.utf8)),
            exchange(responseBody: Data([0xFF, 0x00, 0x01, 0x80])),
            exchange(requestBody: Data("control \u{01} byte".utf8)),
            exchange(fields: HTTPFields((0..<1_001).map { HTTPFields.Field(name: "X-\($0)", value: "v") })),
        ]
        var marked = exchange(responseBody: Data("ok".utf8))
        marked.response.httpVersion = "HTTP/2"
        marked.omitted = ["request.body: 9 bytes, over the recording line limit of 8", "second \"note\""]
        marked.resynchronised = true
        cases.append(marked)
        var fast = 0
        for written in cases {
            let line = Array(written.jsonLine().utf8.dropLast())
            let tree = try treeRead(line)
            if let read = WrittenLine.exchange(line) {
                fast += 1
                #expect(read == tree, "\(written.jsonLine())")
                #expect(read.response.httpVersion == tree.response.httpVersion)
            }
            #expect(try RecordedExchange(jsonLine: line) == tree)
            #expect(try TraceRecord(jsonLine: line) == .exchange(tree))
        }
        // The control byte is written as `\u0001` and the 1,001 fields are over the limit: those two go to the tree.
        #expect(fast == cases.count - 2)
    }

    @Test func everyRecordingLineInTheRepositoryReadsAsTheTreeReadsIt() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let files = [
            "recordings/personalization-flow/exchanges.jsonl",
            "Tests/ConformCLITests/Fixtures/field-failures/android-38-sync-after-logout/broken.jsonl",
            "Tests/ConformCLITests/Fixtures/field-failures/ios-15-no-registration/fixed.jsonl",
        ]
        var fast = 0
        var lines = 0
        for file in files {
            let text = try Data(contentsOf: root.appendingPathComponent(file))
            for line in text.split(separator: 0x0A) where !line.isEmpty {
                lines += 1
                let bytes = Array(line)
                guard let read = WrittenLine.exchange(bytes) else { continue }
                fast += 1
                #expect(read == (try treeRead(bytes)), "\(file)")
            }
        }
        #expect(lines > 20)
        #expect(fast > lines / 2, "\(fast) of \(lines) lines read without a tree")
    }

    /// Numbers in the writer's plain form are read without the tree, every other form through it: the same double
    /// (to the bit, `-0` included) wherever the tree reads the line, and no exchange where it refuses it.
    @Test(arguments: [
        "0", "-0", "-0.0", "3.25", "0.153", "42", "-17.5", "123456789012345678901234567890",
        "0.1000000000000000055511151231257827", "9007199254740993", "1e3", "2.5E-3",
        "1" + String(repeating: "0", count: 400), "01", "1.", "-", ".5", "1.5.2", "--1", "1e999",
    ])
    func aDurationReadsAsTheTreeReadsIt(_ number: String) throws {
        let line = String(exchange().jsonLine().dropLast())
            .replacingOccurrences(of: #""durationMs":3.25"#, with: #""durationMs":"# + number)
        let bytes = Array(line.utf8)
        let tree = try? treeRead(bytes)
        let read = WrittenLine.exchange(bytes)
        if let tree {
            #expect(read == tree)
            #expect(read?.durationMs.bitPattern == tree.durationMs.bitPattern, "\(number)")
        } else {
            #expect(read == nil, "\(number)")
        }
        let plain = number.range(of: #"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$"#, options: .regularExpression) != nil
        #expect(Array(number.utf8).withUnsafeBufferPointer { WrittenLine.isPlainDecimal($0[...]) } == plain)
    }

    /// Plain decimals of up to 15 digits are read without text: to the bit the double the tree reading gives
    /// (`strtod` for a fraction, an `Int` for an integer), over every place of the point and both signs.
    @Test func shortDecimalsReadAsTheTreeReadsThem() {
        var random = SplitMix64(seed: 38)
        var mismatches: [String] = []
        for _ in 0..<20_000 {
            let count = Int.random(in: 1...15, using: &random)
            var digits = (0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) }
            let point = Int.random(in: 0..<count, using: &random)
            // A plain decimal: no leading zero before more integer digits.
            if point > 1, digits[0] == "0" { digits[0] = "7" }
            var text = point == 0 ? String(digits) : String(digits[..<point]) + "." + String(digits[point...])
            if point == 0, count > 1, digits[0] == "0" { text = "9" + text.dropFirst() }
            if Bool.random(using: &random) { text = "-" + text }
            let bytes = Array(text.utf8)
            let read = bytes.withUnsafeBufferPointer { buffer -> Double? in
                WrittenLine.isPlainDecimal(buffer[...]) ? WrittenLine.shortDecimal(buffer[...]) : nil
            }
            let expected = text.contains(".") ? Double(text) : Int(text).map(Double.init)
            if read?.bitPattern != expected?.bitPattern { mismatches.append(text) }
        }
        #expect(mismatches.count == 0, "first: \(mismatches.prefix(5))")
        // Longer forms are left to the text reading.
        let long = Array("1234567890.123456".utf8)
        #expect(long.withUnsafeBufferPointer { WrittenLine.shortDecimal($0[...]) } == nil)
    }

    /// Bodies written as empty strings, and strings that are all escapes, read as the tree reads them.
    @Test func emptyAndAllEscapedBodiesReadAsTheTreeReadsThem() throws {
        let line = String(exchange(responseBody: Data("x".utf8)).jsonLine().dropLast())
        for (body, expected) in [(#""""#, ""), (#""\\\"""#, #"\""#), (#""\n""#, "\n")] {
            let variant = line.replacingOccurrences(of: #""body":"x""#, with: #""body":"# + body)
            let bytes = Array(variant.utf8)
            let read = try #require(WrittenLine.exchange(bytes), "\(body)")
            #expect(read == (try treeRead(bytes)))
            #expect(read.response.body == Data(expected.utf8), "\(body)")
        }
    }

    @Test func otherLayoutsAreLeftToTheTreeReadingWithItsErrors() throws {
        let line = String(exchange(responseBody: Data(#"{"a":1}"#.utf8)).jsonLine().dropLast())
        let variants: [(String, String?)] = [
            (line.replacingOccurrences(of: #"{"seq":42,"#, with: #"{ "seq": 42, "#), nil),
            (line.replacingOccurrences(of: #""seq":42,"flow":"dev-1""#, with: #""flow":"dev-1","seq":42"#), nil),
            (line + " ", nil),
            (line.replacingOccurrences(of: #"dev-1"#, with: #"dev\u002d1"#), nil),
            (line.replacingOccurrences(of: #""seq":42"#, with: #""seq":42.0"#), "$.seq"),
            (line.replacingOccurrences(of: #""seq":42"#, with: #""seq":042"#), "expected ',' or '}'"),
            (line.replacingOccurrences(of: #""durationMs":3.25"#, with: #""durationMs":3."#), "no digits after '.'"),
            (line.replacingOccurrences(of: #""status":201"#, with: #""status":"201""#), "$.response.status"),
            (line + "}", "unexpected content after the JSON value"),
        ]
        for (text, expected) in variants {
            let bytes = Array(text.utf8)
            #expect(WrittenLine.exchange(bytes) == nil, "\(text)")
            if let expected {
                #expect(throws: RecordingLineError.self) { try RecordedExchange(jsonLine: bytes) }
                do {
                    _ = try RecordedExchange(jsonLine: bytes)
                } catch {
                    let described = "\(error.path ?? "") \(error.message)"
                    #expect(described.contains(expected), "\(text): \(described)")
                }
            } else {
                #expect(try RecordedExchange(jsonLine: bytes) == (try treeRead(bytes)))
            }
        }
    }
}
