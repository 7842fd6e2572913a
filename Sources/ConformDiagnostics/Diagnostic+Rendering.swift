extension Diagnostic {
    /// The compiler-style text: `file:line:col: severity: message`, the source line with a caret, and `help:`.
    ///
    /// Without a mark the first line is `file: severity: message`; without a file, `severity: message`.
    ///
    /// `source` is the whole file the diagnostic points into; `color` adds ANSI colours (ask only for a terminal).
    /// Control characters in the message, the file name and the rest are escaped (``TerminalText/escaped(_:)``).
    public func rendered(source: String, color: Bool = false) -> String {
        renderedText(source: source, color: color).rendered
    }

    /// Renders like ``rendered(source:color:)`` given only the offending line (`nil` leaves the snippet out).
    public func rendered(sourceLine: Substring?, color: Bool = false) -> String {
        renderedText(sourceLine: sourceLine, color: color).rendered
    }

    /// The text of ``rendered(source:color:)`` as terminal text, for a sink that keeps its colours apart.
    public func renderedText(source: String, color: Bool = false) -> TerminalText {
        renderedText(sourceLine: sourceLine(in: source), color: color)
    }

    /// The line of `source` (the whole file) the diagnostic points at; `nil` without a mark.
    public func sourceLine(in source: String) -> Substring? {
        mark.flatMap { Self.line($0.line, of: source) }
    }

    /// The text of ``rendered(sourceLine:color:)`` as terminal text, for a sink that keeps its colours apart.
    public func renderedText(sourceLine: Substring?, color: Bool = false) -> TerminalText {
        let paint = Paint(enabled: color)
        var first = TerminalText(location.map { $0 + " " } ?? "")
        first += paint.severity(severity, code: code) + " " + TerminalText(message)
        var lines = [first]
        if let mark, let sourceLine {
            let snippet = Snippet(line: sourceLine, column: mark.column)
            let number = String(mark.line)
            let width = max(5, number.count)
            let gutter = String(repeating: " ", count: width - number.count) + number
            let blank = String(repeating: " ", count: width)
            lines.append(TerminalText("\(gutter) | \(snippet.text)".trailingSpacesTrimmed))
            lines.append(
                TerminalText("\(blank) | \(String(repeating: " ", count: snippet.caretOffset))") + paint.caret(severity)
            )
        }
        if let help { lines.append(paint.help + " " + TerminalText(help)) }
        return TerminalText.joined(lines, separator: "\n")
    }

    /// Line `number` (1-based) of `source`; lines end at `\n`, `\r\n` or `\r`, as in libyaml's marks.
    static func line(_ number: Int, of source: String) -> Substring? {
        guard number >= 1 else { return nil }
        var current = 1
        var start = source.startIndex
        var index = source.startIndex
        while index < source.endIndex {
            let character = source[index]
            if character == "\n" || character == "\r" || character == "\r\n" {
                if current == number { return source[start..<index] }
                current += 1
                start = source.index(after: index)
            }
            index = source.index(after: index)
        }
        return current == number ? source[start..<source.endIndex] : nil
    }
}

/// The visible part of a source line: tabs expanded, control characters masked, long lines cut around the caret.
private struct Snippet {
    static let maxWidth = 120
    static let tabWidth = 4

    var text: String
    var caretOffset: Int

    init(line: Substring, column: Int) {
        var cells: [Character] = []
        var caret = 0
        for (index, character) in line.enumerated() {
            if index == column - 1 { caret = cells.count }
            if character == "\t" {
                cells.append(contentsOf: repeatElement(" ", count: Self.tabWidth - cells.count % Self.tabWidth))
            } else if character.unicodeScalars.allSatisfy({ $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                cells.append("\u{FFFD}")
            } else {
                cells.append(character)
            }
        }
        if column - 1 >= line.count { caret = cells.count + (column - 1 - line.count) }
        var lower = 0
        var upper = cells.count
        if cells.count > Self.maxWidth {
            lower = max(0, min(caret - Self.maxWidth / 2, cells.count - Self.maxWidth))
            upper = min(cells.count, lower + Self.maxWidth)
        }
        var text = String(cells[lower..<upper])
        caret -= lower
        if lower > 0 {
            text = "…" + text
            caret += 1
        }
        if upper < cells.count { text += "…" }
        self.text = text
        self.caretOffset = caret
    }
}

/// ANSI colours for the severity label, caret and `help:`, or plain text when disabled.
private struct Paint {
    var enabled: Bool

    private func wrap(_ text: String, _ code: String) -> TerminalText {
        TerminalText.styled(TerminalText(text), code, enabled: enabled)
    }

    private func code(_ severity: Diagnostic.Severity) -> String {
        switch severity {
        case .error: "1;31"
        case .warning: "1;33"
        case .note: "1"
        }
    }

    func severity(_ severity: Diagnostic.Severity, code: String?) -> TerminalText {
        wrap("\(severity.rawValue)\(code.map { "[\($0)]" } ?? ""):", self.code(severity))
    }
    func caret(_ severity: Diagnostic.Severity) -> TerminalText { wrap("^", code(severity)) }
    var help: TerminalText { wrap("help:", "1;36") }
}

extension String {
    fileprivate var trailingSpacesTrimmed: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}

extension Diagnostic: CustomStringConvertible {
    /// The one-line form `file:line:col: severity: message`.
    public var description: String {
        [location, "\(severity.rawValue)\(code.map { "[\($0)]" } ?? ""): \(message)"].compactMap { $0 }
            .joined(separator: " ")
    }

    /// `file:line:col:`, `file:` or `nil`, then the context (`exchange 3 (…):`), as the start of the first line.
    var location: String? {
        var parts: [String] = []
        if let place { parts.append(place + ":") }
        if let context { parts.append("\(context):") }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
