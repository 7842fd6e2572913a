import Foundation
import Testing

/// A generated section of a page (`docs/suites.md` unless told) between two HTML comments, checked against what the tests compute.
struct DocsSection {
    /// The marker's name, e.g. `fault-matrix` for `<!-- fault-matrix:begin -->` … `<!-- fault-matrix:end -->`.
    var name: String
    /// The page holding the section, relative to the repository root.
    var file = "docs/suites.md"

    var path: URL { SuitesBundle.root.appendingPathComponent(file) }

    /// Expects the section to hold `table`; `CONFORM_RECORD_GOLDENS=1` rewrites it instead.
    func check(_ table: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let begin = "<!-- \(name):begin -->\n"
        let end = "<!-- \(name):end -->"
        let text = try String(contentsOf: path, encoding: .utf8)
        guard let start = text.range(of: begin),
            let stop = text.range(of: end, range: start.upperBound..<text.endIndex)
        else {
            Issue.record(
                "\(file) has no '\(begin.dropLast())' … '\(end)' section", sourceLocation: sourceLocation)
            return
        }
        if ProcessInfo.processInfo.environment["CONFORM_RECORD_GOLDENS"] == "1" {
            let updated = text.replacingCharacters(in: start.upperBound..<stop.lowerBound, with: table)
            try updated.write(to: path, atomically: true, encoding: .utf8)
        } else {
            #expect(
                String(text[start.upperBound..<stop.lowerBound]) == table,
                "\(file) is out of date; run with CONFORM_RECORD_GOLDENS=1 to rewrite its \(name)",
                sourceLocation: sourceLocation)
        }
    }
}
