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
            let keys = options.sortedKeys ? o.keys.sorted() : o.keys
            for (i, key) in keys.enumerated() {
                if i > 0 { out += "," }
                if options.pretty { newline(&out, indent + 1) }
                JSONValue.writeString(key, into: &out)
                out += options.pretty ? ": " : ":"
                o[key]!.write(into: &out, options: options, indent: indent + 1)
            }
            if options.pretty { newline(&out, indent) }
            out += "}"
        }
    }

    private func newline(_ out: inout String, _ indent: Int) {
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    /// Appends `s` as a JSON string literal.
    public static func writeString(_ s: String, into out: inout String) {
        // Fast path: nothing to escape, append the whole string at once.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += "\""
            out += s
            out += "\""
            return
        }
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
