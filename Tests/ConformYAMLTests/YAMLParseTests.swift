import ConformYAML
import Testing

@Suite struct YAMLParseTests {
    static let suite = """
        suite:
          name: demo
          steps:
            - request: {method: GET, path: "/a"}
              expect:
                status: 200
                body: |
                  hello
        """

    @Test func nestedNodesCarryOneBasedMarks() throws {
        let root = try #require(try YAML.parse(Self.suite, file: "s.yaml"))
        #expect(root.mark == mark(1, 1))
        let suite = try #require(root["suite"])
        #expect(suite.mark == mark(2, 3))
        #expect(suite["name"]?.mark == mark(2, 9))
        let pairs = try #require(suite.mappingPairs)
        #expect(pairs.map(\.key.mark) == [mark(2, 3), mark(3, 3)])
        let steps = try #require(suite["steps"]?.sequenceItems)
        #expect(steps.count == 1)
        #expect(steps[0].mark == mark(4, 7))
        let request = try #require(steps[0]["request"])
        #expect(request.mark == mark(4, 16))
        #expect(request["method"]?.mark == mark(4, 25))
        #expect(request["path"]?.mark == mark(4, 36))
        #expect(request["path"]?.kind == .scalar("/a", .doubleQuoted))
        #expect(request.endMark == mark(4, 41))
        let status = try #require(steps[0]["expect"]?["status"])
        #expect(status.mark == mark(6, 17))
        #expect(status.resolvedScalar == .int(200))
        let body = try #require(steps[0]["expect"]?["body"])
        #expect(body.mark == mark(7, 15))
        #expect(body.kind == .scalar("hello", .literal))
    }

    @Test func accessorsAnswerNilForTheWrongKind() throws {
        let root = try #require(try YAML.parse("a: [1, 2]\nb: x\n", file: "s.yaml"))
        #expect(root.scalarText == nil)
        #expect(root.sequenceItems == nil)
        #expect(root["a"]?.sequenceItems?.compactMap(\.resolvedScalar) == [.int(1), .int(2)])
        #expect(root["a"]?.mappingPairs == nil)
        #expect(root["a"]?["x"] == nil)
        #expect(root["b"]?.scalarText == "x")
        #expect(root["missing"] == nil)
        #expect(root.resolvedScalar == nil)
    }

    @Test func emptyInputsHaveNoDocument() throws {
        for text in ["", "# only a comment\n", "---\n", "--- ~\n"] {
            if text == "--- ~\n" {
                #expect(try YAML.parse(text, file: "e.yaml")?.resolvedScalar == .null)
            } else {
                #expect(try YAML.parse(text, file: "e.yaml") == nil, "\(text)")
            }
        }
    }

    @Test func aliasesExpandToTheAnchoredNodeAtTheAliasPosition() throws {
        let root = try #require(try YAML.parse("base: &b {x: 1}\ncopy: *b\n", file: "a.yaml"))
        let copy = try #require(root["copy"])
        #expect(copy.mark == mark(2, 7))
        #expect(copy["x"]?.resolvedScalar == .int(1))
        #expect(copy.hasSameContent(as: try #require(root["base"])))
    }

    @Test func tagsAreShortenedAndHonoured() throws {
        let root = try #require(
            try YAML.parse(
                "a: !!str 12\nb: !!int \"12\"\nc: !custom 5\nd: ! 5\ne: !!float 1\nf: !!null ''\ng: !!map {}\n",
                file: "t.yaml"))
        #expect(root["a"]?.tag == "!!str")
        #expect(root["a"]?.resolvedScalar == .string("12"))
        #expect(root["b"]?.resolvedScalar == .int(12))
        #expect(root["c"]?.tag == "!custom")
        #expect(root["c"]?.resolvedScalar == .string("5"))
        #expect(root["d"]?.resolvedScalar == .string("5"))
        #expect(root["e"]?.resolvedScalar == .double(1))
        #expect(root["f"]?.resolvedScalar == .null)
        #expect(root["g"]?.tag == "!!map")
    }

    @Test func windowsLineEndingsKeepLineNumbers() throws {
        let root = try #require(try YAML.parse("a: 1\r\nb:\r\n  c: 2\r\n", file: "w.yaml"))
        #expect(root["b"]?["c"]?.mark == mark(3, 6))
    }

    @Test func complexKeysAreAllowedAndSkipDuplicateChecks() throws {
        let root = try #require(try YAML.parse("[a, b]: 1\n[a, b]: 2\n", file: "k.yaml"))
        #expect(root.mappingPairs?.count == 2)
    }
}
