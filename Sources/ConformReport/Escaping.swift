import ConformDiagnostics
import Foundation

/// Text made safe for the formats Conform writes, one escaper per format: XML (JUnit), HTML (the certification
/// report), roff (the man page) and the terminal. JSON strings are escaped by `JSONValue`'s writer in `ConformCore`, YAML
/// scalars by `YAMLQuoting` in `ConformYAML`.
public enum Escaping {
    /// XML 1.0 content and attribute values (double- or single-quoted): `& < > " '` as entities; tab, line feed and
    /// carriage return kept; every character XML 1.0 cannot carry (other C0 controls, U+FFFE, U+FFFF) as `?`; the
    /// bidirectional controls as the console shows them (``TerminalText/visibleEscape(_:)``, `\u{202e}`).
    public static func xml(_ text: String) -> String {
        markup(text, apostrophe: "&apos;") { scalar in
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: nil
            case 0..<0x20, 0xFFFE, 0xFFFF: "?"
            case _ where TerminalText.isBidirectionalControl(scalar): TerminalText.visibleEscape(scalar)
            default: nil
            }
        }
    }

    /// HTML content and attribute values (double- or single-quoted): `& < > " '` as references; tab and line feed
    /// kept, carriage return dropped; other C0 and C1 controls and DEL as U+FFFD, so no escape sequence survives;
    /// the bidirectional controls, which would reorder what the page shows (a product name, a suite's title), as
    /// the console shows them (``TerminalText/visibleEscape(_:)``, `\u{202e}`).
    public static func html(_ text: String) -> String {
        markup(text, apostrophe: "&#39;") { scalar in
            switch scalar.value {
            case 0x09, 0x0A: nil
            case 0x0D: ""
            case 0..<0x20, 0x7F..<0xA0: "\u{FFFD}"
            case _ where TerminalText.isBidirectionalControl(scalar): TerminalText.visibleEscape(scalar)
            default: nil
            }
        }
    }

    /// Markup text: `& < > "` as the entities XML and HTML share, `'` as `apostrophe`, and each other character as
    /// `control` replaces it (`nil`: kept).
    private static func markup(
        _ text: String, apostrophe: String, control: (Unicode.Scalar) -> String?
    ) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += apostrophe
            default:
                if let replacement = control(scalar) { out += replacement } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// Terminal text (standard output and error): line feed and tab kept, every other control character (C0, DEL,
    /// C1) as a `\x1b`-style escape, carriage return as `\r`, bidirectional overrides as `\u{202e}`-style escapes.
    /// The one terminal escaper, ``TerminalText/escaped(_:)``, which the diagnostics renderer applies too.
    public static func terminal(_ text: String) -> String { TerminalText.escaped(text) }

    /// Roff inside a line (a name, an option's value): backslash as `\e`, hyphen as `\-`, every character past
    /// ASCII as a Unicode escape `\[uXXXX]` (the page renders whatever the reader's locale); other control
    /// characters than tab and line feed as `\[uFFFD]`, so none reaches troff.
    public static func roff(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20: out += "\\[uFFFD]"
            case _ where scalar.value > 0x7E: out += "\\[u" + String(format: "%04X", scalar.value) + "]"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A roff paragraph: each line escaped as ``roff(_:)`` does, empty lines dropped (roff fills the lines), and a
    /// line that would start with a control character (`.` or `'`) led by the zero-width `\&`, so it stays text.
    public static func roffText(_ text: String) -> String {
        text.split(separator: "\n").map { line -> String in
            let escaped = roff(String(line))
            return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
        }.joined(separator: "\n")
    }
}
