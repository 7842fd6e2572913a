import ConformCore
import Foundation
import Testing

@Suite struct JSONTests {
    @Test func parsesAndSerializesKeepingOrderAndIntegers() throws {
        let text = #"{"b":1,"a":[true,null,1.5,"x\n\u00e9"],"c":{}}"#
        let value = try JSONValue.parse(text)
        #expect(value["b"] == .int(1))
        #expect(value["a"]?[2] == .double(1.5))
        #expect(value.serialized() == #"{"b":1,"a":[true,null,1.5,"x\né"],"c":{}}"#)
    }

    /// Every byte that must be escaped, between runs that need none (ASCII, two-, three- and four-byte UTF-8), is
    /// written as JSON requires, and the text reads back as the same string.
    @Test func escapesEveryByteThatNeedsItAndCopiesTheRest() throws {
        let raw = "a\"b\\c\nd\re\tf\u{08}g\u{0C}h\u{01}i\u{1F}é€\u{1F600}\"\"end"
        var out = ""
        JSONValue.writeString(raw, into: &out)
        #expect(out == #""a\"b\\c\nd\re\tf\bg\fh\u0001i\u001fé€😀\"\"end""#)
        #expect(try JSONValue.parse(out) == .string(raw))
        for plain in ["", "x", "\"", "é\"", "\"é"] {
            var written = ""
            JSONValue.writeString(plain, into: &written)
            #expect(try JSONValue.parse(written) == .string(plain), "\(plain.debugDescription)")
        }
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "tru", "\"\\x\"", "01", "1 2", "{\"a\":\"\u{01}\"}", "-888888E888", "1e309",
        "[1e400]",
    ])
    func refusesInvalidJSON(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test func parsesBytesInPlaceLikeText() throws {
        let text = #"{"a":[1,2.5,"é"],"b":null}"#
        #expect(try JSONValue.parse(bytes: Array(text.utf8)) == JSONValue.parse(text))
        #expect(throws: JSONParseError.self) { try JSONValue.parse(bytes: Array("[1,".utf8)) }
    }

    /// Many small values cost far more as a tree than as text: past the budget the parser stops, naming it.
    @Test func refusesATreeOverItsMemoryBudget() throws {
        let small = Array(("[" + Array(repeating: #"{"k":"v"}"#, count: 1000).joined(separator: ",") + "]").utf8)
        #expect(try JSONValue.parse(bytes: small, memoryBudget: 1_000_000).arrayValue?.count == 1000)
        do {
            _ = try JSONValue.parse(bytes: small, memoryBudget: 100_000)
            Issue.record("a tree over its budget was built")
        } catch {
            #expect(error.message.contains("memory budget of 100000 bytes"))
            #expect(error.offset < small.count / 2, "parsing stops at the budget, not at the end")
        }
        let long = Array((#"[""# + String(repeating: "x", count: 100_000) + #""]"#).utf8)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(bytes: long, memoryBudget: 50_000) }
        #expect(JSONValue.memoryBudget(forDocumentOf: 10) == 20 + 64 * 1024 * 1024)
        #expect(JSONValue.memoryBudget(forDocumentOf: .max) > 0)
    }

    /// A response body of 2 MB of empty objects would take over 100 MB as a tree: refused as JSON, naming the budget,
    /// while an ordinary body parses.
    @Test func aResponseBodyIsParsedWithinItsBudget() throws {
        let dense = Data(("[" + Array(repeating: "{}", count: 700_000).joined(separator: ",") + "]").utf8)
        let refused = HTTPResponse(status: 200, body: dense).jsonBody
        #expect(throws: JSONParseError.self) { try refused.get() }
        if case .failure(let error) = refused { #expect(error.message.contains("memory budget")) }
        let ordinary = HTTPResponse(status: 200, body: Data(#"{"pushRegId":"abc"}"#.utf8)).jsonBody
        #expect(try ordinary.get()["pushRegId"] == "abc")
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
    }

    @Test func pathsParseAndResolve() throws {
        let v: JSONValue = ["instances": [["pushRegId": "a"], ["pushRegId": "b"]], "odd key": 1]
        #expect(v[path: JSONPath(parsing: "$.instances[1].pushRegId")!] == "b")
        #expect(v[path: JSONPath(parsing: "$.instances[-1].pushRegId")!] == "b")
        #expect(v[path: JSONPath(parsing: "$['odd key']")!] == 1)
        #expect(v[path: JSONPath(parsing: "$.nope")!] == nil)
        #expect(JSONPath(parsing: "$.a[") == nil)
        #expect(JSONPath(parsing: "$.instances[0]['odd key']")!.description == "$.instances[0]['odd key']")
    }
}
