import ConformDiagnostics
import Foundation
import Testing

@Suite struct DiagnosticTests {
    @Test func catalogIdsAreUniqueAndDotted() {
        let names = DiagnosticID.catalog.map(\.rawValue)
        #expect(Set(names).count == names.count)
        for name in names {
            let parts = name.split(separator: ".", omittingEmptySubsequences: false)
            #expect(parts.count == 2, "\(name) is not area.kind")
            #expect(
                name.allSatisfy { $0.isLowercase || $0 == "." || $0 == "-" }, "\(name) has more than a-z, '.', '-'")
        }
    }

    /// Every `static let … = DiagnosticID("…")` in the catalog's source is listed in `catalog`, and only those.
    @Test func everyDeclaredIdIsInTheCatalog() throws {
        let source = try String(contentsOf: Self.catalogSource, encoding: .utf8)
        let declared = source.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("static let"), let open = line.range(of: "DiagnosticID(\"") else { return nil }
            let rest = line[open.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        #expect(!declared.isEmpty)
        #expect(Set(declared) == Set(DiagnosticID.catalog.map(\.rawValue)))
        #expect(declared.count == DiagnosticID.catalog.count)
    }

    @Test func idsAreFoundByName() {
        #expect(DiagnosticID(rawValue: "yaml.unknown-key") == .yamlUnknownKey)
        #expect(DiagnosticID(rawValue: "har.entry-invalid") == .harEntryInvalid)
        #expect(DiagnosticID(rawValue: "no.such-id") == nil)
    }

    @Test func withoutAMarkTheFileStartsTheLine() {
        let diagnostic = Diagnostic(
            .recordingInvalid, file: "a.jsonl", message: "cannot read", help: "check permissions")
        #expect(diagnostic.rendered(source: "x") == "a.jsonl: error: cannot read\nhelp: check permissions")
    }

    @Test func withoutAFileTheSeverityStartsTheLine() {
        let diagnostic = Diagnostic(
            .cliCannotListen, message: "cannot listen on 127.0.0.1:1", help: "pick a free port")
        #expect(diagnostic.rendered(sourceLine: nil) == "error: cannot listen on 127.0.0.1:1\nhelp: pick a free port")
        #expect(diagnostic.description == "error: cannot listen on 127.0.0.1:1")
    }

    @Test func fullFormHasSnippetAndCaret() {
        let diagnostic = Diagnostic(
            .harEntryInvalid, file: "app.har", mark: SourceMark(line: 2, column: 5), message: "bad entry",
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
            .harEntryInvalid, file: "\(hostile).har", message: "bad \(hostile)", help: "see \(hostile)")
        let escaped = #"\x1b]0;pwned\x07\x1b[2J"#
        #expect(
            diagnostic.rendered(sourceLine: nil, color: true)
                == "\(escaped).har: \u{1B}[1;31merror:\u{1B}[0m bad \(escaped)\n"
                + "\u{1B}[1;36mhelp:\u{1B}[0m see \(escaped)")
        #expect(!diagnostic.rendered(sourceLine: nil).contains("\u{1b}"))
    }

    @Test func sourceOrderIsFileThenMarkAndStable() {
        func d(_ file: String?, _ line: Int, _ message: String) -> Diagnostic {
            Diagnostic(.yamlSyntax, file: file, mark: SourceMark(line: line, column: 1), message: message)
        }
        let sorted = Diagnostic.inSourceOrder([d("b", 1, "b1"), d("a", 3, "a3"), d("a", 1, "a1"), d("a", 1, "a1'")])
        #expect(sorted.map(\.message) == ["a1", "a1'", "a3", "b1"])
    }

    static let catalogSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/ConformDiagnostics/DiagnosticID.swift").standardized
}
