import ConformCore
import ConformDiagnostics
import Foundation

/// Where the members of a JSON object and the elements of a JSON array are in a text, found by one pass over the
/// bytes without building values, so a large document is parsed one part at a time.
///
/// Each function gives up (`nil`) on what it does not expect (a key with escapes, a repeated key, text that does
/// not balance): the caller then parses the document whole, which reports the error exactly.
public struct JSONSpans {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The members of the object at `range`, keys in text order, each value's range without surrounding space.
    public func members(_ range: Range<Int>) -> [(key: String, value: Range<Int>)]? {
        let end = range.upperBound
        var seen = Set<String>()
        return items(range, open: UInt8(ascii: "{"), close: UInt8(ascii: "}")) {
            (start: Int) -> ((key: String, value: Range<Int>), end: Int)? in
            guard start < end, bytes[start] == UInt8(ascii: "\"") else { return nil }
            let keyStart = start + 1
            var keyEnd = keyStart
            while keyEnd < end, bytes[keyEnd] != UInt8(ascii: "\"") {
                if bytes[keyEnd] == UInt8(ascii: "\\") || bytes[keyEnd] < 0x20 { return nil }
                keyEnd += 1
            }
            guard keyEnd < end else { return nil }
            let key = String(decoding: bytes[keyStart..<keyEnd], as: UTF8.self)
            guard seen.insert(key).inserted else { return nil }
            var i = skipSpace(keyEnd + 1, end)
            guard i < end, bytes[i] == UInt8(ascii: ":") else { return nil }
            i = skipSpace(i + 1, end)
            guard let valueEnd = skipValue(i, end) else { return nil }
            return ((key, i..<valueEnd), valueEnd)
        }
    }

    /// The elements of the array at `range`, each without surrounding space.
    public func elements(_ range: Range<Int>) -> [Range<Int>]? {
        items(range, open: UInt8(ascii: "["), close: UInt8(ascii: "]")) { start in
            skipValue(start, range.upperBound).map { (start..<$0, $0) }
        }
    }

    /// The comma-separated items of the object or array at `range` (between `open` and `close`, which end the
    /// range but for space), each read by `item` from its first byte: the item and where it ends, or `nil`.
    private func items<Item>(
        _ range: Range<Int>, open: UInt8, close: UInt8, _ item: (_ start: Int) -> (Item, end: Int)?
    ) -> [Item]? {
        let end = range.upperBound
        var i = skipSpace(range.lowerBound, end)
        guard i < end, bytes[i] == open else { return nil }
        i = skipSpace(i + 1, end)
        var out: [Item] = []
        if i < end, bytes[i] == close {
            return skipSpace(i + 1, end) == end ? out : nil
        }
        while true {
            guard let (value, valueEnd) = item(i) else { return nil }
            out.append(value)
            i = skipSpace(valueEnd, end)
            guard i < end else { return nil }
            if bytes[i] == close {
                return skipSpace(i + 1, end) == end ? out : nil
            }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i = skipSpace(i + 1, end)
        }
    }

    /// The value at `range` parsed, with at most one value per 64 bytes of its text (and at least 200,000), so
    /// its tree stays within a few times the text; an error names the line and column in the whole text.
    public func parse(_ range: Range<Int>, source: String) throws(RunReportError) -> JSONValue {
        do {
            return try JSONValue.parse(
                Data(bytes[range]), maxDepth: 64, maxValues: JSONSpans.maxValues(forBytes: range.count))
        } catch {
            let mark = SourceMark(offset: range.lowerBound + error.offset, in: bytes)
            throw RunReportError(
                "\(source):\(mark): not a JSON report: \(error.message)",
                help: "pass the files written by 'conform run --report json:FILE'")
        }
    }

    /// The most values parsed from `bytes` of text at once.
    static func maxValues(forBytes bytes: Int) -> Int { max(200_000, bytes / 64) }

    private func skipSpace(_ start: Int, _ end: Int) -> Int {
        var i = start
        while i < end, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        return i
    }

    /// The end of the value starting at `start` (balanced brackets, strings with escapes); validity is the
    /// parser's to check.
    private func skipValue(_ start: Int, _ end: Int) -> Int? {
        guard start < end else { return nil }
        var i = start
        switch bytes[i] {
        case UInt8(ascii: "\""):
            return skipString(i, end)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while i < end {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    guard let after = skipString(i, end) else { return nil }
                    i = after
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return nil
        default:
            while i < end {
                let b = bytes[i]
                if b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || b == 0x20 || b == 0x0A
                    || b == 0x0D || b == 0x09
                {
                    break
                }
                i += 1
            }
            return i > start ? i : nil
        }
    }

    private func skipString(_ start: Int, _ end: Int) -> Int? {
        var i = start + 1
        while i < end {
            switch bytes[i] {
            case UInt8(ascii: "\""): return i + 1
            case UInt8(ascii: "\\"): i += 2
            default: i += 1
            }
        }
        return nil
    }
}
