import ConformDiagnostics
import ConformYAML
import Testing

@Suite struct YAMLEmitTests {
    static let varied = """
        name: demo suite
        version: 3
        ratio: 0.5
        enabled: true
        nothing: ~
        hex: 0x1F
        quoted: "true"
        yes: no
        empty: ''
        spaces: '  padded  '
        colon: 'a: b'
        hash: 'a #b'
        starts: '- dash'
        unicode: "héllo\\u00A0wörld ✓"
        control: "bell\\a and tab\\t and nul\\0"
        literal: |
          line one
            indented
          last
        stripped: |-
          no newline
        kept: |+
          two newlines

        folded: >
          folded
          text
        steps:
          - request: {method: GET, path: /a?x=1&y=2}
            expect:
              status: 200
              headers: []
              body: {}
          - - nested
            - [1, 2]
          - !!str 42
          - !custom value
          - ''
        ? [complex, key]
        : complex value
        "": empty key
        "null": string key
        tagged: !!map {a: 1}
        anchored: &a {x: [1, 2]}
        alias: *a
        """

    @Test func variedDocumentRoundTrips() throws {
        let tree = try #require(try YAML.parse(Self.varied, file: "v.yaml"))
        let emitted = YAML.emit(tree)
        let reparsed = try #require(try YAML.parse(emitted, file: "emitted.yaml"))
        #expect(reparsed.hasSameContent(as: tree), "\(emitted)")
        #expect(YAML.emit(reparsed) == emitted)
    }

    @Test func emitsReadableBlockStyle() throws {
        let tree = try #require(
            try YAML.parse(
                "a: 1\nb: [x, {c: 'true', d: ''}]\ne: {}\nf: \"two\\nlines\\n\"\ng: [[1, 2], []]\n", file: "r.yaml"))
        #expect(
            YAML.emit(tree) == """
                a: 1
                b:
                  - x
                  - c: "true"
                    d: ""
                e: {}
                f: |
                  two
                  lines
                g:
                  - - 1
                    - 2
                  - []

                """)
    }

    @Test(arguments: [
        "", " ", "true", "False", "null", "~", "42", "-1", "0x10", "1e3", ".inf", ".nan", "yes", "off", "a: b", "a #b",
        "#a", "- a", "-a", "---", "...", "? x", "key:", "@at", "`tick", "'single'", "\"double\"", "back\\slash",
        "tab\there", "trail ", " lead", "line\nbreak", "\n", "\n\nx", "x\n\n\n", "  indented\nblock", "a\n  \nb",
        "cr\r\nlf", "nel\u{85}", "ls\u{2028}", "bom\u{FEFF}", "del\u{7F}", "esc\u{1B}", "emoji 🎉", "[flow]", "{a}",
        "a,b", "%percent", "!bang", "&amp", "*star", "|pipe", ">gt", String(repeating: "k", count: 1500),
    ])
    func stringsSurviveAsValuesKeysAndItems(_ text: String) throws {
        let string = YAMLNode(kind: .scalar(text, .doubleQuoted), mark: SourceMark(line: 1, column: 1))
        let value = YAMLNode(kind: .scalar("v", .plain), mark: SourceMark(line: 1, column: 1))
        let tree = YAMLNode(
            kind: .mapping([
                .init(key: value, value: string),
                .init(key: string, value: value),
                .init(
                    key: YAMLNode(kind: .scalar("items", .plain), mark: string.mark),
                    value: YAMLNode(kind: .sequence([string, string]), mark: string.mark)),
            ]),
            mark: string.mark)
        let emitted = YAML.emit(tree)
        let reparsed = try YAML.parse(emitted, file: "s.yaml")
        #expect(reparsed?.hasSameContent(as: tree) == true, "\(emitted)")
        let alone = try YAML.parse(YAML.emit(string), file: "s.yaml")
        #expect(alone?.resolvedScalar == .string(text))
    }

    @Test func rootScalarsAndEmptyCollections() throws {
        let mark = SourceMark(line: 1, column: 1)
        #expect(YAML.emit(YAMLNode(kind: .scalar("7", .plain), mark: mark)) == "7\n")
        #expect(YAML.emit(YAMLNode(kind: .sequence([]), mark: mark)) == "[]\n")
        #expect(YAML.emit(YAMLNode(kind: .mapping([]), mark: mark, tag: "!!map")) == "!!map {}\n")
        let tagged = YAMLNode(
            kind: .sequence([YAMLNode(kind: .scalar("a", .plain), mark: mark)]), mark: mark, tag: "!list")
        let reparsed = try YAML.parse(YAML.emit(tagged), file: "t.yaml")
        #expect(reparsed?.hasSameContent(as: tagged) == true)
    }
}
