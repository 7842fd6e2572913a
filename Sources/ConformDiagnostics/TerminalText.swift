/// Text bound for a terminal: text, shown with its control characters escaped, and the control sequences Conform
/// itself adds (colours, a return to the start of the progress line), which no text can produce.
///
/// Everything Conform shows comes from somewhere: a server's response, an adapter's stderr, a suite's title, a file
/// name. Kept apart from Conform's own sequences, none of it can move the cursor, retitle the window or clear the
/// screen: ``escaped(_:)`` is applied to every text piece when the whole is ``rendered``.
public struct TerminalText: Sendable, Hashable {
    enum Piece: Sendable, Hashable {
        /// Shown escaped.
        case text(String)
        /// One of Conform's own control sequences, written as it is.
        case control(String)
    }

    private(set) var pieces: [Piece] = []

    /// Empty text.
    public init() {}

    /// `text`, to be shown escaped.
    public init(_ text: String) { append(text) }

    /// One of Conform's own control sequences (a colour, `\r` before a progress line); never pass text from outside.
    public static func control(_ sequence: String) -> TerminalText {
        var text = TerminalText()
        text.pieces = [.control(sequence)]
        return text
    }

    /// `text` between the SGR sequence with `parameters` (`"1;31"`) and the reset, or `text` alone when `enabled` is
    /// false.
    public static func styled(_ text: TerminalText, _ parameters: String, enabled: Bool) -> TerminalText {
        guard enabled else { return text }
        return .control("\u{1B}[\(parameters)m") + text + .control("\u{1B}[0m")
    }

    /// Whether nothing at all would be written.
    public var isEmpty: Bool {
        pieces.allSatisfy { piece in
            if case .text(let text) = piece { text.isEmpty } else { false }
        }
    }

    /// The text as it goes to the terminal: text pieces escaped, Conform's own sequences as they are.
    public var rendered: String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let text): out += Self.escaped(text)
            case .control(let sequence): out += sequence
            }
        }
        return out
    }

    /// Appends `text`, to be shown escaped.
    public mutating func append(_ text: String) {
        guard !text.isEmpty else { return }
        if case .text(let last)? = pieces.last {
            pieces[pieces.count - 1] = .text(last + text)
        } else {
            pieces.append(.text(text))
        }
    }

    /// Appends `other`, its text and control sequences kept apart.
    public mutating func append(_ other: TerminalText) {
        for piece in other.pieces {
            switch piece {
            case .text(let text): append(text)
            case .control: pieces.append(piece)
            }
        }
    }

    public static func + (lhs: TerminalText, rhs: TerminalText) -> TerminalText {
        var joined = lhs
        joined.append(rhs)
        return joined
    }

    public static func += (lhs: inout TerminalText, rhs: TerminalText) { lhs.append(rhs) }

    /// `parts` with `separator` between them.
    public static func joined(_ parts: [TerminalText], separator: String) -> TerminalText {
        var out = TerminalText()
        for (index, part) in parts.enumerated() {
            if index > 0 { out.append(separator) }
            out.append(part)
        }
        return out
    }

    /// `text` safe to show on a terminal: line feed and tab kept; every other C0 control character, DEL and the
    /// C1 controls as `\x1b`-style escapes (carriage return as `\r`); the bidirectional overrides and isolates,
    /// which reorder what is shown, as `\u{202e}`-style escapes. Nothing else changes (a backslash stays one).
    public static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: mayNeedEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            switch value {
            case 0x09, 0x0A: out.unicodeScalars.append(scalar)
            case 0x0D: out += "\\r"
            case 0..<0x20, 0x7F, 0x80..<0xA0: out += "\\x" + hex(value, width: 2)
            case _ where isBidirectionalControl(scalar): out += visibleEscape(scalar)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `scalar` is one of the bidirectional marks, overrides and isolates (U+061C, U+200E, U+200F,
    /// U+202A–U+202E, U+2066–U+2069), which reorder how the text around them is shown (a file name that reads
    /// `txt.exe` as `exe.txt`). Every escaper of text from outside (terminal, HTML, XML) shows them escaped.
    public static func isBidirectionalControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `scalar` as the visible escape `\u{202e}` (lower-case hex, at least four digits).
    public static func visibleEscape(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + hex(scalar.value, width: 4) + "}"
    }

    /// Whether a UTF-8 byte may start something ``escaped(_:)`` changes: a control byte, DEL, or the lead byte of a
    /// C1 control (0xC2), of U+061C (0xD8) or of the bidirectional marks (0xE2).
    private static func mayNeedEscape(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09 && byte != 0x0A) || byte == 0x7F || byte == 0xC2 || byte == 0xD8 || byte == 0xE2
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

extension TerminalText: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) { self.init(value) }

    /// Builds terminal text from a literal: the literal's parts and interpolated values as text, interpolated
    /// terminal text with its control sequences kept.
    public struct StringInterpolation: StringInterpolationProtocol {
        var result = TerminalText()

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) { result.append(literal) }

        public mutating func appendInterpolation(_ text: TerminalText) { result.append(text) }

        public mutating func appendInterpolation<T>(_ value: T) { result.append("\(value)") }
    }

    public init(stringInterpolation: StringInterpolation) { self = stringInterpolation.result }
}
