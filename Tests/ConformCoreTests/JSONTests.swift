import ConformCore
import Testing

@Suite struct JSONTests {
    @Test func parsesAndSerializesKeepingOrderAndIntegers() throws {
        let text = #"{"b":1,"a":[true,null,1.5,"x\n\u00e9"],"c":{}}"#
        let value = try JSONValue.parse(text)
        #expect(value["b"] == .int(1))
        #expect(value["a"]?[2] == .double(1.5))
        #expect(value.serialized() == #"{"b":1,"a":[true,null,1.5,"x\né"],"c":{}}"#)
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
