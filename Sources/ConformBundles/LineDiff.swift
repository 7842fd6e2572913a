import ConformDiagnostics
import ConformReport

/// A unified diff of two texts line by line (`@@ -12,3 +12,3 @@`, `-old`, `+new`, two lines of context), bounded:
/// only the lines between the common start and end are compared, by Myers' algorithm (the standard library's
/// `difference(from:)`) when neither side has more than ``maxCompared`` of them, else as all removed and all
/// added; at most `maxLines` lines are shown, then how many more there are.
public struct LineDiff: Sendable, Hashable {
    /// One line of the diff: ` ` kept, `-` only in the old text, `+` only in the new one.
    public struct Line: Sendable, Hashable {
        public var mark: Character
        public var text: String
    }

    /// The hunk headers and lines, in order, every line shown as `mark` + text.
    public var lines: [String]
    /// How many lines differ (removed plus added).
    public var changed: Int

    /// Above this many differing lines on either side, the middle is not searched for common lines.
    public static let maxCompared = 2000
    /// Lines of context around each change.
    public static let context = 2
    /// A line longer than this many characters is cut (`…`).
    public static let maxLineCharacters = 200

    public init(old: String, new: String) {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        let oldMiddle = Array(a[prefix..<(a.count - suffix)]), newMiddle = Array(b[prefix..<(b.count - suffix)])
        var removed = Set<Int>(), inserted = Set<Int>()
        if oldMiddle.count <= Self.maxCompared, newMiddle.count <= Self.maxCompared {
            for change in newMiddle.difference(from: oldMiddle) {
                switch change {
                case .remove(let offset, _, _): removed.insert(offset)
                case .insert(let offset, _, _): inserted.insert(offset)
                }
            }
        } else {
            removed = Set(oldMiddle.indices)
            inserted = Set(newMiddle.indices)
        }
        // The edit script: the lines of `old` not removed are, in order, the lines of `new` not inserted.
        var script: [(line: Line, oldLine: Int, newLine: Int)] = []
        for i in 0..<prefix { script.append((Line(mark: " ", text: a[i]), i, i)) }
        var i = 0, j = 0
        while i < oldMiddle.count || j < newMiddle.count {
            if i < oldMiddle.count, removed.contains(i) {
                script.append((Line(mark: "-", text: oldMiddle[i]), prefix + i, prefix + j))
                i += 1
            } else if j < newMiddle.count, inserted.contains(j) {
                script.append((Line(mark: "+", text: newMiddle[j]), prefix + i, prefix + j))
                j += 1
            } else {
                script.append((Line(mark: " ", text: oldMiddle[i]), prefix + i, prefix + j))
                i += 1
                j += 1
            }
        }
        for k in 0..<suffix {
            let oldAt = a.count - suffix + k, newAt = b.count - suffix + k
            script.append((Line(mark: " ", text: a[oldAt]), oldAt, newAt))
        }
        changed = script.count { $0.line.mark != " " }
        lines = []
        // Hunks: each change with its context, changes whose context meets joined into one hunk.
        let changes = script.indices.filter { script[$0].line.mark != " " }
        var start = 0
        while start < changes.count {
            var end = start
            while end + 1 < changes.count, changes[end + 1] - changes[end] <= 2 * Self.context + 1 { end += 1 }
            let from = max(0, changes[start] - Self.context), to = min(script.count - 1, changes[end] + Self.context)
            let hunk = script[from...to]
            let oldCount = hunk.count { $0.line.mark != "+" }, newCount = hunk.count { $0.line.mark != "-" }
            let oldStart = hunk.first.map { $0.oldLine + (oldCount > 0 ? 1 : 0) } ?? 0
            let newStart = hunk.first.map { $0.newLine + (newCount > 0 ? 1 : 0) } ?? 0
            lines.append("@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@")
            for entry in hunk { lines.append(String(entry.line.mark) + Self.shown(entry.line.text)) }
            start = end + 1
        }
    }

    /// The diff's first `maxLines` lines, each indented by `indent`, then `… N more lines of the diff` when cut.
    public func rendered(maxLines: Int, indent: String) -> String {
        var out = lines.prefix(maxLines).map { indent + $0 + "\n" }.joined()
        if lines.count > maxLines {
            out += indent + "… \(Noun("more line").counted(lines.count - maxLines)) of the diff not shown\n"
        }
        return out
    }

    /// A line as a terminal may show it: control characters and bidirectional controls escaped, cut when long.
    public static func shown(_ text: String) -> String {
        let escaped = TerminalText.escaped(text)
        guard escaped.count > maxLineCharacters else { return escaped }
        return String(escaped.prefix(maxLineCharacters)) + "…"
    }
}
