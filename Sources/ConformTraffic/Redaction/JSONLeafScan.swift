import ConformCore
import Foundation

/// A JSON body redacted over its bytes: its string and integer leaves are found in one pass, each with its member
/// name (or, in an array, the array's), and only the leaves that change are written again, into a copy of the rest.
///
/// It answers only where the tree could not answer otherwise, and leaves everything else to it (``redacted(_:leaf:)``
/// is `nil`): a body that is not an object or array of valid UTF-8, a `\u` escape, a duplicate member name, a member
/// name with an escape, an integer too long for an `Int`, nesting over ``maxDepth``, an object over ``maxMembers``
/// members, or anything the parser would refuse. When a leaf changes, the splice equals the tree written again only
/// for a body already in its compact form (no whitespace, numbers and escapes as the writer writes them), so a
/// changed body in any other form goes through the tree too; a body in which nothing changes is kept as it came,
/// as the tree path keeps it.
struct JSONLeafScan: ByteCursor {
    /// What replaces a leaf (`.string` or `.int`) under its member name, or in an array under the array's name, at
    /// its depth (1 for the members or elements of the body itself); `nil` or the same value to keep it.
    typealias Leaf = (JSONValue, _ key: String?, _ arrayKey: String?, _ depth: Int) -> JSONValue?

    /// Deeper nesting is left to the tree (whose parser refuses past 512).
    static let maxDepth = 64
    /// Objects with more members are left to the tree (each name is compared with the others for duplicates).
    static let maxMembers = 64

    let bytes: UnsafeBufferPointer<UInt8>
    private let leaf: Leaf
    var index = 0
    /// Whether the text is exactly what the tree of it would be written as (``JSONValue/serialized(_:)``).
    private var compact = true
    private var edits: [(range: Range<Int>, value: JSONValue)] = []
    /// The names of the members of the objects being read, innermost last (for the duplicate check).
    private var names: [Range<Int>] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>, leaf: @escaping Leaf) {
        self.bytes = bytes
        self.leaf = leaf
    }

    /// `body` with its leaves replaced as `leaf` says (`body` itself when none is), or `nil` when the body is not one
    /// this scan takes.
    static func redacted(_ body: Data, leaf: @escaping Leaf) -> Data? {
        guard let first = body.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            RecordedExchange.isUTF8(body)
        else { return nil }
        return body.withUnsafeBytes { raw -> Data? in
            var scan = JSONLeafScan(raw.assumingMemoryBound(to: UInt8.self), leaf: leaf)
            guard scan.value(key: nil, depth: 0) else { return nil }
            scan.skipWhitespace()
            guard scan.index == scan.bytes.count else { return nil }
            if scan.edits.isEmpty { return body }
            guard scan.compact else { return nil }
            return Data(scan.spliced())
        }
    }

    /// The string a JSON object body holds in its top-level member `member` (`.some(nil)` when it holds none, or
    /// no string), read as ``JSONValue/parsedBody(_:)`` would read it; `nil` when the scan does not take the body.
    /// Only bodies up to 64 KB are taken: no parse of those reaches the parser's memory budget.
    static func topLevelString(_ body: Data, member: String) -> String?? {
        guard body.count <= 65_536 else { return nil }
        // Duplicate names are not taken, so the one member of that name is the tree's.
        var found: String?
        let taken = withoutActuallyEscaping({ (value: JSONValue, key: String?, _: String?, depth: Int) -> JSONValue? in
            if depth == 1, key == member { found = value.stringValue }
            return nil
        }) { redacted(body, leaf: $0) }
        return taken == nil ? nil : .some(found)
    }

    private func spliced() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + edits.count * 48)
        var copied = 0
        for edit in edits {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<edit.range.lowerBound]))
            edit.value.writeCompact(into: &out)
            copied = edit.range.upperBound
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
        return out
    }

    /// Steps over white space, which the tree would not write: the text is then not compact.
    mutating func skipWhitespace() {
        while index < bytes.count, Redactor.isJSONSpace(bytes[index]) {
            compact = false
            index += 1
        }
    }

    /// One value at ``index``, named `key` (a member's name; for an array, the name its elements see).
    private mutating func value(key: String?, arrayKey: String? = nil, depth: Int) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(depth: depth + 1)
        case UInt8(ascii: "["): return array(key: key, depth: depth + 1)
        case UInt8(ascii: "\""):
            let start = index
            guard let text = string() else { return false }
            let node = JSONValue.string(text)
            if let replaced = leaf(node, key, arrayKey, depth), replaced != node {
                edits.append((start..<index, replaced))
            }
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            guard let integer = number() else { return false }
            guard let integer else { return true }
            let node = JSONValue.int(integer)
            if let replaced = leaf(node, key, arrayKey, depth), replaced != node {
                edits.append((start..<index, replaced))
            }
            return true
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return false
        }
    }

    private mutating func object(depth: Int) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        let first = names.count
        defer { names.removeSubrange(first...) }
        return members(key: { $0.memberName(after: first) }) { name, scan in scan.value(key: name, depth: depth) }
    }

    /// A member's name, without escapes and not already a name of this object (whose names start at `first`).
    private mutating func memberName(after first: Int) -> String? {
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            guard bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 else { return nil }
            end += 1
        }
        guard end < bytes.count, names.count - first < Self.maxMembers else { return nil }
        let length = end - start
        for other in names[first...] where other.count == length {
            if memcmp(bytes.baseAddress! + other.lowerBound, bytes.baseAddress! + start, length) == 0 { return nil }
        }
        names.append(start..<end)
        index = end + 1
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    private mutating func array(key: String?, depth: Int) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        return items(open: UInt8(ascii: "["), close: UInt8(ascii: "]")) { scan in
            scan.value(key: nil, arrayKey: key, depth: depth)
        }
    }

    /// A string's text with its escapes undone; `nil` for a `\u` escape, a control byte or an unknown escape.
    private mutating func string() -> String? {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            index += 1
        }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: out, as: UTF8.self)
            }
            guard byte >= 0x20 else { return nil }
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count, let simple = JSONValue.unescaped(bytes[index + 1]) else { return nil }
                // `\/` reads as `/`, which the writer writes bare.
                if simple == UInt8(ascii: "/") { compact = false }
                out.append(simple)
                index += 2
                continue
            }
            out.append(byte)
            index += 1
        }
        return nil
    }

    /// A number as the parser reads it: `.some(Int)` for an integer the tree holds as `.int` and writes back as it
    /// is, `.some(nil)` for any other valid number (written back in another form, so the body is not compact), `nil`
    /// for what is not a number or an integer too long to be sure of.
    private mutating func number() -> Int?? {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digits = index
        guard index < bytes.count, Self.isDigit(bytes[index]) else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        let integerEnd = index
        var integer = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integer = false
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else { return nil }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integer = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { return nil }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        guard integer else {
            // The parser refuses what no double holds (1e999): then the body is text to it.
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let double = Double(text), double.isFinite else { return nil }
            compact = false
            return .some(nil)
        }
        guard integerEnd - digits <= 18 else { return nil }
        var value = 0
        for byte in UnsafeBufferPointer(rebasing: bytes[digits..<integerEnd]) {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        if bytes[start] == UInt8(ascii: "-") {
            // `-0` is the integer 0, written back as `0`.
            if value == 0 { compact = false }
            value = -value
        }
        return .some(value)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
