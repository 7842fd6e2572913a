/// How ``JSONValue/serialized(_:)`` lays out its output.
public struct JSONWriteOptions: Sendable, Hashable {
    public var pretty: Bool
    public var sortedKeys: Bool

    public init(pretty: Bool = false, sortedKeys: Bool = false) {
        self.pretty = pretty
        self.sortedKeys = sortedKeys
    }

    public static let compact = JSONWriteOptions()
    public static let pretty = JSONWriteOptions(pretty: true)
}

extension JSONValue {
    /// JSON text: compact by default, keys in their written order unless sorted.
    public func serialized(_ options: JSONWriteOptions = .compact) -> String {
        var out = ""
        write(into: &out, options: options, indent: 0)
        return out
    }

    private func write(into out: inout String, options: JSONWriteOptions, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite, d == d.rounded(), abs(d) < 1e15 {
                out += String(Int(d))
                out += ".0"
            } else if d.isFinite {
                out += String(d)
            } else {
                out += "null"
            }
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let a):
            if a.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (i, element) in a.enumerated() {
                if i > 0 { out += "," }
                if options.pretty { newline(&out, indent + 1) }
                element.write(into: &out, options: options, indent: indent + 1)
            }
            if options.pretty { newline(&out, indent) }
            out += "]"
        case .object(let o):
            if o.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            if options.sortedKeys {
                for (i, key) in o.keys.sorted().enumerated() {
                    writeMember(key, o[key]!, first: i == 0, into: &out, options: options, indent: indent)
                }
            } else {
                for (i, (key, value)) in o.enumerated() {
                    writeMember(key, value, first: i == 0, into: &out, options: options, indent: indent)
                }
            }
            if options.pretty { newline(&out, indent) }
            out += "}"
        }
    }

    private func writeMember(
        _ key: String, _ value: JSONValue, first: Bool, into out: inout String, options: JSONWriteOptions, indent: Int
    ) {
        if !first { out += "," }
        if options.pretty { newline(&out, indent + 1) }
        JSONValue.writeString(key, into: &out)
        out += options.pretty ? ": " : ":"
        value.write(into: &out, options: options, indent: indent + 1)
    }

    private func newline(_ out: inout String, _ indent: Int) {
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    /// Appends `s` as a JSON string literal.
    ///
    /// Runs of bytes that need no escape are appended whole: every escaped byte is ASCII, so a run always ends on a
    /// character boundary.
    public static func writeString(_ s: String, into out: inout String) {
        out += "\""
        let utf8 = s.utf8
        var runStart = utf8.startIndex
        var index = runStart
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                utf8.formIndex(after: &index)
                continue
            }
            if runStart != index { out += Substring(utf8[runStart..<index]) }
            switch byte {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "\n"): out += "\\n"
            case UInt8(ascii: "\r"): out += "\\r"
            case UInt8(ascii: "\t"): out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            default:
                let hex = String(byte, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            utf8.formIndex(after: &index)
            runStart = index
        }
        if runStart != utf8.endIndex { out += Substring(utf8[runStart...]) }
        out += "\""
    }
}
