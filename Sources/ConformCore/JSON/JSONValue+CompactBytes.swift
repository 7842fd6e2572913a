/// Compact JSON written straight into UTF-8 bytes: what a server sends for every answer, without growing a `String`
/// and copying it out again.
extension JSONValue {
    /// The bytes of ``serialized(_:)`` with ``JSONWriteOptions/compact``, the same text.
    public func compactUTF8() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        writeCompact(into: &out)
        return out
    }

    /// Appends the compact text of this value to `out`.
    public func writeCompact(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: b ? "true".utf8 : "false".utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d):
            if d.isFinite, d == d.rounded(), abs(d) < 1e15 {
                out.append(contentsOf: String(Int(d)).utf8)
                out.append(contentsOf: ".0".utf8)
            } else if d.isFinite {
                out.append(contentsOf: String(d).utf8)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, element) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.writeCompact(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in o {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSONValue.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.writeCompact(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` as a JSON string literal, escaped as ``writeString(_:into:)`` escapes it into a `String`.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if s.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) == nil {
            appendEscaped(Array(s.utf8), to: &out)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 `bytes` (valid UTF-8, which is not checked) as a JSON string literal, escaped as
    /// ``writeString(_:into:)`` escapes the same text: a body or a field written without making a `String` of it.
    public static func writeString(utf8 bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(bytes.assumingMemoryBound(to: UInt8.self), to: &out)
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped<C: RandomAccessCollection<UInt8>>(_ bytes: C, to out: inout [UInt8])
    where C.Index == Int {
        var runStart = bytes.startIndex
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            out.append(contentsOf: bytes[runStart..<index])
            runStart = index + 1
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
            case 0x08: out.append(contentsOf: "\\b".utf8)
            case 0x0C: out.append(contentsOf: "\\f".utf8)
            default:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        out.append(contentsOf: bytes[runStart..<bytes.endIndex])
    }
}
