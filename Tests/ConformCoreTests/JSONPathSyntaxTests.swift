import ConformCore
import Testing

/// Suites, noise rules and redaction policies read paths with one scanner: concrete paths and patterns agree.
@Suite("JSON path syntax")
struct JSONPathSyntaxTests {
    @Test("a concrete path reads the same with or without its $")
    func concretePaths() throws {
        let expected: [JSONPath.Component] = [.key("a"), .key("b c"), .index(-1), .key("d")]
        #expect(try #require(JSONPath(parsing: "$.a['b c'][-1].d")).components == expected)
        #expect(try #require(JSONPath(parsing: "a[\"b c\"][-1].d")).components == expected)
        #expect(JSONPath(parsing: "$")?.components == [])
    }

    @Test("wildcards belong to patterns: in a concrete path `*` is a key and `..` or `[*]` is not a path")
    func wildcardsOnlyInPatterns() {
        #expect(JSONPath(parsing: "$.*")?.components == [.key("*")])
        #expect(JSONPath(parsing: "$..id") == nil)
        #expect(JSONPath(parsing: "$.a[*]") == nil)
        #expect(JSONPathPattern("$.a[*].*")?.steps == [.key("a"), .anyIndex, .anyKey])
        #expect(JSONPathPattern("$..id[0]")?.steps == [.descendant("id"), .index(0)])
    }

    @Test("malformed paths are refused by both", arguments: ["$.", "$[", "$[x]", "$.a..", "$a b["])
    func malformed(_ text: String) {
        #expect(JSONPath(parsing: text) == nil)
        #expect(JSONPathPattern(text) == nil)
    }

    @Test("a pattern needs its $ and matches the concrete paths it describes")
    func patternsMatch() throws {
        #expect(JSONPathPattern("a.b") == nil)
        let pattern = try #require(JSONPathPattern(" $.bulks[*].bulkId "))
        #expect(pattern.description == "$.bulks[*].bulkId")
        #expect(pattern.matches(try #require(JSONPath(parsing: "$.bulks[3].bulkId"))))
        #expect(!pattern.matches(try #require(JSONPath(parsing: "$.bulks.bulkId"))))
    }
}
