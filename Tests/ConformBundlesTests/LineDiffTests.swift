import ConformBundles
import Testing

/// The diff `verify` shows of a bundled suite modified.
@Suite struct LineDiffTests {
    /// The diff is bounded: at most 40 lines shown, then how many more; control characters from the bundle are
    /// shown escaped.
    @Test func theDiffIsBoundedAndEscaped() {
        let old = (1...200).map { "line \($0)" }.joined(separator: "\n")
        let new = (1...200).map { $0 % 2 == 0 ? "changed \($0)\u{1b}[2J" : "line \($0)" }.joined(separator: "\n")
        let diff = LineDiff(old: old, new: new)
        #expect(diff.changed == 200)
        let shown = diff.rendered(maxLines: 40, indent: "  ")
        let lines = shown.split(separator: "\n")
        #expect(lines.count == 41)
        #expect(lines[0] == "  @@ -1,200 +1,200 @@")
        #expect(lines[1] == "   line 1")
        #expect(lines[2] == "  -line 2")
        #expect(lines[3] == "  +changed 2\\x1b[2J")
        #expect(lines[40] == "  … \(diff.lines.count - 40) more lines of the diff not shown")
        // Too many differing lines to search: all removed, then all added, still bounded.
        let large = LineDiff(
            old: (1...3000).map { "a\($0)" }.joined(separator: "\n"),
            new: (1...3000).map { "b\($0)" }.joined(separator: "\n"))
        #expect(large.changed == 6000)
        #expect(large.rendered(maxLines: 3, indent: "").hasSuffix("… 5998 more lines of the diff not shown\n"))
    }
}
