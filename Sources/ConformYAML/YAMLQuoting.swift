/// Decides how the emitter writes a string: plain, literal block or double-quoted with escapes.
enum YAMLQuoting {
    /// Plain words that YAML 1.1 readers take for booleans; quoted so that every reader sees a string.
    static let yaml11Words: Set<String> = [
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
    ]

    /// Whether `text` can be written plain and reads back as the same string (or as itself under a tag).
    static func isPlainSafe(_ text: String, tagged: Bool) -> Bool {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return false }
        if !tagged, YAMLScalar.resolvingPlain(text) != .string(text) || yaml11Words.contains(text) { return false }
        if "-?:,[]{}#&*!|>'\"%@`".unicodeScalars.contains(first) { return false }
        if first == " " || last == " " || last == ":" || text.hasPrefix("...") { return false }
        if text.contains(": ") || text.contains(" #") { return false }
        return text.unicodeScalars.allSatisfy { $0.value >= 0x20 && isPrintable($0) && !isBreak($0) }
    }

    /// A literal block (`|`, `|-` or `|+` and the lines at `indent`), or `nil` when the text cannot be one.
    static func literalBlock(_ text: String, indent: Int) -> String? {
        guard text.contains("\n") else { return nil }
        let printable = text.unicodeScalars.allSatisfy {
            $0 == "\n" || $0 == "\t" || ($0.value >= 0x20 && isPrintable($0) && !isBreak($0))
        }
        guard printable else { return nil }
        var body = Substring(text)
        var trailingBreaks = 0
        while body.last == "\n" {
            body.removeLast()
            trailingBreaks += 1
        }
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        guard let firstContent = lines.first(where: { !$0.isEmpty }),
            firstContent.first != " ", firstContent.first != "\t",
            !lines.contains(where: { !$0.isEmpty && $0.allSatisfy { $0 == " " || $0 == "\t" } })
        else { return nil }
        let chomping = trailingBreaks == 0 ? "-" : trailingBreaks == 1 ? "" : "+"
        let margin = String(repeating: " ", count: indent)
        var block = "|\(chomping)\n"
        for line in lines { block += line.isEmpty ? "\n" : margin + line + "\n" }
        if trailingBreaks > 1 { block += String(repeating: "\n", count: trailingBreaks - 1) }
        return block
    }

    /// `text` in double quotes with YAML escapes for quotes, backslashes, breaks and non-printable characters.
    static func doubleQuoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\0": result += "\\0"
            case "\u{85}": result += "\\N"
            case "\u{2028}": result += "\\L"
            case "\u{2029}": result += "\\P"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
                    result += "\\x" + hex(scalar.value, digits: 2)
                } else if !isPrintable(scalar) {
                    result += "\\u" + hex(scalar.value, digits: 4)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// YAML's printable set (tab and breaks aside), less the byte-order mark.
    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0x7E, 0x85, 0xA0...0xD7FF, 0xE000...0xFEFE, 0xFF00...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    /// Characters libyaml treats as line breaks besides `\n` and `\r`.
    private static func isBreak(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\u{85}" || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
