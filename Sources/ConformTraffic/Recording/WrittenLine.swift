import ConformCore
import Foundation

/// Reads a recording line laid out exactly as ``RecordedExchange/jsonLine()`` writes it (members in its order, no
/// spaces, no `\u` escapes) straight into a ``RecordedExchange``, without building a JSON tree of the line.
///
/// It only ever answers for lines whose reading through the tree could not differ: anything else (another member
/// order, whitespace, an unknown member, a `\u` escape, a header list over ``HTTPFields/maxCount``, a field the tree
/// reading would refuse) gives `nil`, and the caller reads the line through the tree, which gives the same exchange
/// or the error with its path. A replay reads every line once, so this is most of what reading a recording costs.
struct WrittenLine: ByteCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The exchange `line` holds, or `nil` when the line is not in the writer's exact layout or is not valid.
    static func exchange(_ line: some Collection<UInt8>) -> RecordedExchange? {
        let read = line.withContiguousStorageIfAvailable { buffer -> RecordedExchange? in
            var reader = WrittenLine(buffer)
            return reader.exchange()
        }
        if let read { return read }
        return Array(line).withUnsafeBufferPointer { buffer in
            var reader = WrittenLine(buffer)
            return reader.exchange()
        }
    }

    private mutating func exchange() -> RecordedExchange? {
        guard literal("{\"seq\":"), let seq = integer(), literal(",\"flow\":"), let flow = string(),
            literal(",\"upstream\":"), let upstream = string(), literal(",\"startedAt\":"),
            let startedAt = plainString().flatMap(ISOTimestamp.parse), literal(",\"durationMs\":"),
            let durationMs = number(),
            literal(",\"request\":{\"method\":"), let method = string(), literal(",\"url\":"), let url = string(),
            literal(",\"headers\":"), let requestFields = headers(), let requestBody = body(), literal("}")
        else { return nil }
        let request = HTTPRequest(method: HTTPMethod(method), url: url, headerFields: requestFields, body: requestBody)
        // The tree reading refuses such a request with its reason: let it.
        guard HTTPSyntax.problem(in: request) == nil, literal(",\"response\":{\"status\":"), let status = integer()
        else { return nil }
        var version: String?
        if literal(",\"httpVersion\":") {
            guard let text = string(), HTTPVersionText.known.contains(text) else { return nil }
            version = text
        }
        guard literal(",\"headers\":"), let responseFields = headers(), let responseBody = body(), literal("}") else {
            return nil
        }
        var response = HTTPResponse(status: HTTPStatus(status), headerFields: responseFields, body: responseBody)
        response.httpVersion = version
        var omitted: [String] = []
        if literal(",\"omitted\":[") {
            while !literal("]") {
                if !omitted.isEmpty, !literal(",") { return nil }
                guard let note = string() else { return nil }
                omitted.append(note)
            }
        }
        var exchange = RecordedExchange(
            seq: seq, flow: flow, upstream: upstream, startedAt: startedAt, durationMs: durationMs, request: request,
            response: response, omitted: omitted)
        if literal(",\"resynchronised\":true") { exchange.resynchronised = true }
        guard literal("}"), index == bytes.count else { return nil }
        return exchange
    }

    /// `[[name,value],…]`: `nil` past ``HTTPFields/maxCount`` fields, whose omission the tree reading notes.
    private mutating func headers() -> HTTPFields? {
        guard literal("[") else { return nil }
        var fields: [HTTPFields.Field] = []
        while !literal("]") {
            // Room for a usual list at once, not grown one field at a time.
            if fields.isEmpty { fields.reserveCapacity(6) } else if !literal(",") { return nil }
            guard fields.count < HTTPFields.maxCount, literal("["), let name = string(), literal(","),
                let value = string(), literal("]")
            else { return nil }
            fields.append(HTTPFields.Field(name: name, value: value))
        }
        return HTTPFields(fields)
    }

    /// An optional `,"body":"…"` (UTF-8 text) or `,"bodyBase64":"…"`.
    private mutating func body() -> Data? {
        if literal(",\"body\":") { return stringData() }
        if literal(",\"bodyBase64\":") {
            guard let text = string() else { return nil }
            return Data(base64Encoded: text)
        }
        return Data()
    }

    private mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        var high: UInt8 = 0
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                let text = UnsafeBufferPointer(rebasing: bytes[start..<end])
                return high < 0x80 ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            high |= byte
            end += 1
        }
        return stringBytes().flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// A JSON string's bytes with its escapes undone; `nil` for a `\u` escape, a control byte or invalid UTF-8.
    private mutating func stringBytes() -> [UInt8]? {
        var count = 0
        let out = [UInt8](unsafeUninitializedCapacity: unescapedBound()) { buffer, initialized in
            count = unescape(into: buffer) ?? -1
            initialized = max(count, 0)
        }
        return count < 0 ? nil : out
    }

    /// ``stringBytes()`` as the `Data` a body is kept in, unescaped straight into it.
    private mutating func stringData() -> Data? {
        var data = Data(count: unescapedBound())
        let count = data.withUnsafeMutableBytes { unescape(into: $0.bindMemory(to: UInt8.self)) }
        guard let count else { return nil }
        data.count = count
        return data
    }

    /// At least as many bytes as the string at ``index`` (a quote) holds unescaped: its escaped length, up to its
    /// closing quote or the end of the line.
    private func unescapedBound() -> Int {
        var end = index + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
        return max(0, min(end, bytes.count) - index - 1)
    }

    /// Writes the string at ``index`` with its escapes undone into `out` (of ``unescapedBound()`` bytes at least)
    /// and steps over it; the count written, or `nil` for a `\u` escape, a control byte or invalid UTF-8.
    private mutating func unescape(into out: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var count = 0
        func copy(_ run: Range<Int>) {
            let piece = UnsafeBufferPointer(rebasing: bytes[run])
            _ = UnsafeMutableBufferPointer(rebasing: out[count..<count + piece.count]).initialize(fromContentsOf: piece)
            count += piece.count
        }
        var high: UInt8 = 0
        var run = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                copy(run..<index)
                index += 1
                guard high >= 0x80 else { return count }
                let written = UnsafeBufferPointer(rebasing: out[..<count])
                return String(validating: written, as: UTF8.self) == nil ? nil : count
            }
            if byte < 0x20 { return nil }
            if byte == UInt8(ascii: "\\") {
                copy(run..<index)
                guard index + 1 < bytes.count else { return nil }
                guard let simple = JSONValue.unescaped(bytes[index + 1]) else { return nil }
                out[count] = simple
                count += 1
                index += 2
                run = index
                continue
            }
            high |= byte
            index += 1
        }
        return nil
    }

    /// A string without escapes or control bytes, as its bytes (what the writer writes a timestamp as); `nil`
    /// otherwise.
    private mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        var end = index + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20
        {
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        defer { index = end + 1 }
        return UnsafeBufferPointer(rebasing: bytes[index + 1..<end])
    }

    /// A JSON integer that fits an `Int` (what the tree reading takes as `.int`).
    private mutating func integer() -> Int? {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digits = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        let count = index - digits
        guard count > 0, count == 1 || bytes[digits] != UInt8(ascii: "0"), count < 19 else { return nil }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
            return nil
        }
        var value = 0
        for byte in bytes[digits..<index] { value = value * 10 + Int(byte - UInt8(ascii: "0")) }
        return bytes[start] == UInt8(ascii: "-") ? -value : value
    }

    /// Whether `digits` is `-?(0|[1-9][0-9]*)(\.[0-9]+)?`: a JSON number without an exponent.
    static func isPlainDecimal(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var i = digits.startIndex
        if i < digits.endIndex, digits[i] == UInt8(ascii: "-") { i += 1 }
        func isDigit(_ at: Int) -> Bool { at < digits.endIndex && digits[at] &- UInt8(ascii: "0") < 10 }
        guard isDigit(i) else { return false }
        if digits[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while isDigit(i) { i += 1 }
        }
        if i < digits.endIndex, digits[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        return i == digits.endIndex
    }

    /// A plain decimal of at most 15 digits, as the double the tree reading gives, without text: its digits make an
    /// integer below 2⁵³ and a power of ten up to 10¹⁵ is a double exactly, so one division rounds as `strtod` does.
    /// An integer becomes a double from an `Int`, as in the tree (`-0` is 0). `nil` for longer forms.
    static func shortDecimal(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        var i = digits.startIndex
        let negative = digits[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa = 0
        var count = 0
        var fraction: Int?
        while i < digits.endIndex {
            let byte = digits[i]
            i += 1
            if byte == UInt8(ascii: ".") {
                fraction = 0
                continue
            }
            mantissa = mantissa * 10 + Int(byte &- UInt8(ascii: "0"))
            count += 1
            if let places = fraction { fraction = places + 1 }
            if count > 15 { return nil }
        }
        guard let places = fraction else { return Double(negative ? -mantissa : mantissa) }
        let value = Double(mantissa) / Self.powersOfTen[places]
        return negative ? -value : value
    }

    /// 10⁰ to 10¹⁵, each a double exactly (a plain decimal of 15 digits has at most 15 after its point).
    private static let powersOfTen: [Double] = [
        1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ]

    /// A JSON number as a finite `Double`, read as the tree reading reads it.
    private mutating func number() -> Double? {
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                UInt8(ascii: "e"), UInt8(ascii: "E"):
                index += 1
            default:
                // A plain decimal (what the writer writes: `0.153`, `42`) is read directly, to the same double the
                // tree reading gives; any other form goes through the tree, which refuses what JSON does not allow.
                let digits = bytes[start..<index]
                if Self.isPlainDecimal(digits), let exact = Self.shortDecimal(digits) { return exact }
                let text = String(decoding: UnsafeBufferPointer(rebasing: digits), as: UTF8.self)
                if Self.isPlainDecimal(digits) {
                    // As the tree: an integer that fits an `Int` becomes a double from it (`-0` is then 0).
                    let integer = digits.contains(UInt8(ascii: ".")) ? nil : Int(text).map(Double.init)
                    guard let number = integer ?? Double(text), number.isFinite else { return nil }
                    return number
                }
                guard let value = try? JSONValue.parse(text), let number = value.numberValue, number.isFinite else {
                    return nil
                }
                return number
            }
        }
        return nil
    }
}
