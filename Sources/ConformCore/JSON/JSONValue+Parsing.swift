import ConformDiagnostics
import Foundation

/// Why a body is not JSON, with the byte offset, line and column where parsing stopped.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var line: Int
    public var column: Int
    /// The text was refused for a limit (`maxValues`, `maxDepth`), not for its syntax.
    public var isLimit = false

    public var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
}

extension JSONValue {
    /// Parses RFC 8259 JSON; refuses nesting deeper than `maxDepth`.
    public static func parse(_ data: Data, maxDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        try parse(data, maxDepth: maxDepth, maxValues: .max)
    }

    /// Parses RFC 8259 JSON; refuses nesting deeper than `maxDepth`, and more than `maxValues` values (each
    /// scalar, array and object counts one), which bounds the tree's memory whatever the text is made of.
    public static func parse(_ data: Data, maxDepth: Int = 512, maxValues: Int) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: [UInt8](data), maxDepth: maxDepth, maxValues: maxValues)
        return try parser.parseDocument()
    }

    /// Parses like ``parse(_:maxDepth:)``, and refuses a document whose tree would take more than `memoryBudget`
    /// bytes (an estimate, see ``memoryBudget(forDocumentOf:)``), stopping where the budget runs out.
    public static func parse(
        _ data: Data, maxDepth: Int = 512, memoryBudget: Int
    ) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: [UInt8](data), maxDepth: maxDepth, budget: memoryBudget)
        return try parser.parseDocument()
    }

    /// Parses RFC 8259 JSON from `bytes`, read in place: a large document is not copied first.
    public static func parse(
        bytes: [UInt8], maxDepth: Int = 512, memoryBudget: Int = .max
    ) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth, budget: memoryBudget)
        return try parser.parseDocument()
    }

    /// The memory a parsed tree may take for a document of `size` bytes from outside: twice its size plus 64 MiB.
    ///
    /// Small values cost far more as a tree than as text (a 20-byte object about 400 bytes), so a body or line of
    /// tens of MB made of many of them could take gigabytes. With this budget, holding a document, its text and
    /// its tree stays within four times its size plus 200 MB; nothing a protocol message holds comes near it.
    public static func memoryBudget(forDocumentOf size: Int) -> Int {
        min(size, Int.max / 4) * 2 + 64 * 1024 * 1024
    }

    /// Parses RFC 8259 JSON text.
    public static func parse(_ text: String, maxDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(text.utf8), maxDepth: maxDepth)
        return try parser.parseDocument()
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    let maxValues: Int
    /// The most the tree may take, and what it is estimated to take so far.
    let budget: Int
    var held = 0
    var index = 0
    var depth = 0
    var values = 0

    /// Estimated sizes in the tree: a value's slot in its array or object, an object's storage, each member's key
    /// and order, an array's storage, and a string's heap storage (strings of up to 15 bytes are held inline).
    static let valueCost = 24
    static let objectCost = 400
    static let memberCost = 64
    static let arrayCost = 64
    static let stringCost = 32

    init(bytes: [UInt8], maxDepth: Int, maxValues: Int = .max, budget: Int = .max) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.maxValues = maxValues
        self.budget = budget
    }

    /// Counts `cost` bytes against the budget.
    mutating func hold(_ cost: Int) throws(JSONParseError) {
        held += cost
        if held > budget {
            var failure = error(
                "the document would take more than its memory budget of \(budget) bytes as a tree (\(bytes.count) "
                    + "bytes of text; Conform holds at most twice a document's size plus 64 MiB)")
            failure.isLimit = true
            throw failure
        }
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw error("unexpected content after the JSON value") }
        return value
    }

    func error(_ message: String) -> JSONParseError {
        let mark = SourceMark(offset: index, in: bytes)
        return JSONParseError(message: message, offset: index, line: mark.line, column: mark.column)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        values += 1
        if values > maxValues {
            var failure = error("more than \(maxValues) values")
            failure.isLimit = true
            throw failure
        }
        try hold(Self.valueCost)
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try heldString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        for (offset, byte) in expected.enumerated() where bytes[index + offset] != byte {
            throw error("invalid literal")
        }
        index += count
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth {
            var failure = error("nesting deeper than \(maxDepth) levels")
            failure.isLimit = true
            throw failure
        }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        try hold(Self.objectCost)
        index += 1
        var object = JSONObject()
        if closes(UInt8(ascii: "}")) { return .object(object) }
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try heldString()
            try hold(Self.memberCost)
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            object[key] = try parseValue()
        } while try another(before: UInt8(ascii: "}"), in: "an object")
        return .object(object)
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        try hold(Self.arrayCost)
        index += 1
        var array: [JSONValue] = []
        if closes(UInt8(ascii: "]")) { return .array(array) }
        repeat {
            skipWhitespace()
            array.append(try parseValue())
        } while try another(before: UInt8(ascii: "]"), in: "an array")
        return .array(array)
    }

    /// Whether the object or array just opened is empty: `close` follows (then read) after any space.
    mutating func closes(_ close: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == close else { return false }
        index += 1
        return true
    }

    /// After an item of `container` (an object or array ending at `close`): `true` past a comma, when another
    /// item follows, `false` past `close`; anything else is an error.
    mutating func another(before close: UInt8, in container: String) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input in \(container)") }
        switch bytes[index] {
        case UInt8(ascii: ","):
            index += 1
            return true
        case close:
            index += 1
            return false
        default:
            throw error("expected ',' or '\(Character(Unicode.Scalar(close)))'")
        }
    }

    /// A string, counted against the budget when it is too long to be held inline.
    mutating func heldString() throws(JSONParseError) -> String {
        let text = try parseString()
        let count = text.utf8.count
        if count > 15 { try hold(Self.stringCost + count) }
        return text
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes; ASCII text needs no UTF-8 validation.
        var bits: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let end = index
                index += 1
                if bits < 0x80 {
                    return bytes.withUnsafeBufferPointer {
                        String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self)
                    }
                }
                guard let text = String(validating: bytes[start..<end], as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            bits |= byte
            index += 1
        }
        var out = [UInt8](bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string")
                }
                return text
            }
            if byte < 0x20 { throw error("unescaped control character in a string") }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                if let simple = JSONValue.unescaped(escape) {
                    out.append(simple)
                    continue
                }
                switch escape {
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw error("invalid escape")
                }
            } else {
                out.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
            throw error("invalid number")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            if digits == index { throw error("invalid number: no digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            if digits == index { throw error("invalid number: no digits in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let i = Int(text) { return .int(i) }
        guard let d = Double(text) else { throw error("invalid number") }
        // 1e999 is valid JSON text but no double: refuse it rather than hold an infinity no writer can write back.
        guard d.isFinite else { throw error("number out of range (beyond ±1.8e308)") }
        return .double(d)
    }
}

extension JSONValue {
    /// The byte a one-letter JSON escape (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`) stands for, given the
    /// letter after the backslash; `nil` for `u` and for what is no escape.
    @inlinable
    public static func unescaped(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""): 0x22
        case UInt8(ascii: "\\"): 0x5C
        case UInt8(ascii: "/"): 0x2F
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }
}
