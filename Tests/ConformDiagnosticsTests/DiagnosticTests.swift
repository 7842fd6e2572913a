import ConformDiagnostics
import Foundation
import Testing

@Suite struct DiagnosticTests {
    @Test func withoutAMarkTheFileStartsTheLine() {
        let diagnostic = Diagnostic(
            .testFile, file: "a.jsonl", message: "cannot read", help: "check permissions")
        #expect(diagnostic.rendered(source: "x") == "a.jsonl: error: cannot read\nhelp: check permissions")
    }

    @Test func withoutAFileTheSeverityStartsTheLine() {
        let diagnostic = Diagnostic(
            .testNoFile, message: "cannot listen on 127.0.0.1:1", help: "pick a free port")
        #expect(diagnostic.rendered(sourceLine: nil) == "error: cannot listen on 127.0.0.1:1\nhelp: pick a free port")
        #expect(diagnostic.description == "error: cannot listen on 127.0.0.1:1")
    }

    @Test func fullFormHasSnippetAndCaret() {
        let diagnostic = Diagnostic(
            .testFile, file: "app.har", mark: SourceMark(line: 2, column: 5), message: "bad entry",
            help: "fix it")
        #expect(
            diagnostic.rendered(source: "{\n    \"x\": 1\n}") == """
                app.har:2:5: error: bad entry
                    2 |     "x": 1
                      |     ^
                help: fix it
                """)
    }

    /// A message, file name and help quoting hostile text are shown escaped; the renderer's own colours stay.
    @Test func hostileTextIsEscapedAndColoursStay() {
        let hostile = "\u{1b}]0;pwned\u{07}\u{1b}[2J"
        let diagnostic = Diagnostic(
            .testFile, file: "\(hostile).har", message: "bad \(hostile)", help: "see \(hostile)")
        let escaped = #"\x1b]0;pwned\x07\x1b[2J"#
        #expect(
            diagnostic.rendered(sourceLine: nil, color: true)
                == "\(escaped).har: \u{1B}[1;31merror:\u{1B}[0m bad \(escaped)\n"
                + "\u{1B}[1;36mhelp:\u{1B}[0m see \(escaped)")
        #expect(!diagnostic.rendered(sourceLine: nil).contains("\u{1b}"))
    }

    @Test func sourceOrderIsFileThenMarkAndStable() {
        func d(_ file: String?, _ line: Int, _ message: String) -> Diagnostic {
            Diagnostic(.testFile, file: file, mark: SourceMark(line: line, column: 1), message: message)
        }
        let sorted = Diagnostic.inSourceOrder([d("b", 1, "b1"), d("a", 3, "a3"), d("a", 1, "a1"), d("a", 1, "a1'")])
        #expect(sorted.map(\.message) == ["a1", "a1'", "a3", "b1"])
    }

}

/// Ids of the renderer's tests: the module declares none of its own (each module declares the ids it emits).
extension DiagnosticID {
    static let testFile = DiagnosticID("test.file")
    static let testNoFile = DiagnosticID("test.no-file")
}
