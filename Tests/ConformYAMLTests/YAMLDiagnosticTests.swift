import ConformDiagnostics
import ConformYAML
import Testing

@Suite struct YAMLDiagnosticTests {
    @Test func duplicateKeyPointsAtTheSecondKeyAndNamesTheFirst() {
        let text = """
            request:
                status: 100
                status: 200
            """
        #expect(
            renderedFailure(text) == """
                suites/x.yaml:3:5: error: duplicate key 'status'
                    3 |     status: 200
                      |     ^
                help: remove one of the two 'status' keys; the first is at 2:5
                """)
    }

    @Test func keysThatResolveToTheSameValueAreDuplicates() {
        let failure = parseFailure("1: a\n0x1: b\n~: c\nnull: d\n'1': e\n")
        #expect(failure?.diagnostics.map(\.message) == ["duplicate key '0x1'", "duplicate key 'null'"])
    }

    @Test func duplicatesAreFoundInLargeMappings() {
        let keys = (1...30).map { "k\($0): \($0)" } + ["k3: again", "k25: again"]
        let failure = parseFailure(keys.joined(separator: "\n"))
        #expect(
            failure?.diagnostics.map { "\($0.mark!) \($0.message) \($0.help ?? "")" } == [
                "31:1 duplicate key 'k3' remove one of the two 'k3' keys; the first is at 3:1",
                "32:1 duplicate key 'k25' remove one of the two 'k25' keys; the first is at 25:1",
            ])
    }

    @Test func everyComposerProblemInAFileIsReportedInFileOrder() {
        let text = """
            a: *first
            b:
              x: 1
              x: 2
            c: *second
            b: 3
            """
        #expect(
            renderedFailure(text) == """
                suites/x.yaml:1:4: error: found undefined alias 'first'
                    1 | a: *first
                      |    ^
                help: define the anchor '&first' on a node before this alias, or fix the name
                suites/x.yaml:4:3: error: duplicate key 'x'
                    4 |   x: 2
                      |   ^
                help: remove one of the two 'x' keys; the first is at 3:3
                suites/x.yaml:5:4: error: found undefined alias 'second'
                    5 | c: *second
                      |    ^
                help: define the anchor '&second' on a node before this alias, or fix the name
                suites/x.yaml:6:1: error: duplicate key 'b'
                    6 | b: 3
                      | ^
                help: remove one of the two 'b' keys; the first is at 2:1
                """)
    }

    @Test func composerProblemsBeforeASyntaxErrorAreKept() {
        let failure = parseFailure("a: 1\na: 2\nb: [x, y\nc: 2\n")
        #expect(
            failure?.diagnostics.map { "\($0.mark!) \($0.message)" } == [
                "2:1 duplicate key 'a'",
                "4:2 did not find expected ',' or ']' (while parsing a flow sequence)",
            ])
    }

    @Test func unclosedFlowSequenceUsesLibyamlWording() {
        #expect(
            renderedFailure("a: 1\nb: [x, y\nc: 2") == """
                suites/x.yaml:3:2: error: did not find expected ',' or ']' (while parsing a flow sequence)
                    3 | c: 2
                      |  ^
                help: separate items with ',' and close the sequence with ']'; the flow sequence starts at 2:4
                """)
    }

    @Test func badIndentation() {
        #expect(
            renderedFailure("a: 1\n  b: 2") == """
                suites/x.yaml:2:4: error: mapping values are not allowed in this context
                    2 |   b: 2
                      |    ^
                help: quote the value if it contains ': ', or fix the indentation of this key
                """)
    }

    @Test func tabIndentationIsExpandedInTheSnippet() {
        #expect(
            renderedFailure("a:\n\t- b\n") == """
                suites/x.yaml:2:1: error: found character that cannot start any token (while scanning for the next token)
                    2 |     - b
                      | ^
                help: indent with spaces, not tabs, and quote values that start with '@' or '`'
                """)
        #expect(
            renderedFailure("a:\t@b\n") == """
                suites/x.yaml:1:4: error: found character that cannot start any token (while scanning for the next token)
                    1 | a:  @b
                      |     ^
                help: indent with spaces, not tabs, and quote values that start with '@' or '`'
                """)
    }

    @Test func columnsCountCharactersNotBytes() {
        #expect(
            renderedFailure("ééé: x: y") == """
                suites/x.yaml:1:7: error: mapping values are not allowed in this context
                    1 | ééé: x: y
                      |       ^
                help: quote the value if it contains ': ', or fix the indentation of this key
                """)
    }

    @Test func unterminatedQuotedString() {
        #expect(
            renderedFailure("a: \"open\n") == """
                suites/x.yaml:2:1: error: found unexpected end of stream (while scanning a quoted scalar)
                    2 |
                      | ^
                help: close the quoted string or collection that is still open; the quoted scalar starts at 1:4
                """)
    }

    @Test func recursiveAlias() {
        #expect(
            renderedFailure("a: &x [1, *x]") == """
                suites/x.yaml:1:11: error: found recursive alias 'x'
                    1 | a: &x [1, *x]
                      |           ^
                help: an alias cannot refer to the node that contains it; copy the content instead
                """)
    }

    @Test func tagMismatches() {
        #expect(
            renderedFailure("a: !!int abc\nb: !!seq x\nc: !!str [1]\n") == """
                suites/x.yaml:1:4: error: 'abc' is not a valid !!int value
                    1 | a: !!int abc
                      |    ^
                help: write a valid int or remove the '!!int' tag
                suites/x.yaml:2:4: error: a scalar cannot carry the !!seq tag
                    2 | b: !!seq x
                      |    ^
                help: remove the '!!seq' tag
                suites/x.yaml:3:4: error: a sequence cannot carry the !!str tag
                    3 | c: !!str [1]
                      |    ^
                help: remove the '!!str' tag
                """)
    }

    @Test func mergeKeysAreRefused() {
        #expect(
            renderedFailure("base: &b {x: 1}\nuse:\n  <<: *b\n") == """
                suites/x.yaml:3:3: error: merge keys ('<<') are not supported
                    3 |   <<: *b
                      |   ^
                help: write the merged keys out in full in this mapping
                """)
    }

    @Test func controlCharacterIsReportedAtItsPosition() {
        #expect(
            renderedFailure("a: 1\nb: x\u{1}y\n") == """
                suites/x.yaml:2:5: error: control characters are not allowed (character U+0001)
                    2 | b: x\u{FFFD}y
                      |     ^
                help: remove the character, or write it as an escape inside a double-quoted string
                """)
    }

    @Test func colourOnlyWhenAsked() {
        let diagnostic = Diagnostic(
            .yamlSyntax, file: "f.yaml", mark: mark(1, 3), message: "bad", help: "fix it")
        let warning = Diagnostic(.yamlSyntax, .warning, file: "f.yaml", mark: mark(1, 1), message: "odd")
        #expect(
            diagnostic.rendered(source: "a: b", color: true) == """
                f.yaml:1:3: \u{1B}[1;31merror:\u{1B}[0m bad
                    1 | a: b
                      |   \u{1B}[1;31m^\u{1B}[0m
                \u{1B}[1;36mhelp:\u{1B}[0m fix it
                """)
        #expect(
            warning.rendered(source: "a: b", color: true).hasPrefix("f.yaml:1:1: \u{1B}[1;33mwarning:\u{1B}[0m odd"))
        #expect(!diagnostic.rendered(source: "a: b").contains("\u{1B}"))
    }

    @Test func longLinesAreCutAroundTheCaret() {
        let line = String(repeating: "a", count: 200) + "X" + String(repeating: "b", count: 200)
        let diagnostic = Diagnostic(.yamlSyntax, file: "f.yaml", mark: mark(1, 201), message: "here")
        let lines = diagnostic.rendered(source: line).split(separator: "\n")
        let snippet = lines[1].dropFirst("    1 | ".count)
        let caret = lines[2].dropFirst("      | ".count)
        #expect(snippet.count == 122)
        #expect(snippet.first == "…" && snippet.last == "…")
        #expect(caret.count == 62)
        #expect(Array(snippet)[caret.count - 1] == "X")
    }

    @Test func oneLineDescription() {
        let diagnostic = Diagnostic(.yamlSyntax, .warning, file: "f.yaml", mark: mark(2, 7), message: "odd")
        #expect(diagnostic.description == "f.yaml:2:7: warning: odd")
    }

    @Test func missingLineLeavesTheSnippetOut() {
        let diagnostic = Diagnostic(.yamlSyntax, file: "f.yaml", mark: mark(9, 1), message: "gone", help: "h")
        #expect(diagnostic.rendered(source: "a: 1\n") == "f.yaml:9:1: error: gone\nhelp: h")
    }

    @Test func wideLineNumbersKeepTheGutterAligned() {
        let source = String(repeating: "x: 1\n", count: 123_456) + "oops"
        let diagnostic = Diagnostic(.yamlSyntax, file: "f.yaml", mark: mark(123_457, 2), message: "m")
        #expect(
            diagnostic.rendered(source: source) == """
                f.yaml:123457:2: error: m
                123457 | oops
                       |  ^
                """)
    }
}
