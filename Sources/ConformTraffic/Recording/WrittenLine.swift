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
            literal(",\"upstream\":"), let upstream = string(), literal(",\"startedAt\":"), let startedText = string(),
            let startedAt = ISOTimestamp.parse(startedText), literal(",\"durationMs\":"), let durationMs = number(),
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
            if !fields.isEmpty, !literal(",") { return nil }
            guard fields.count < HTTPFields.maxCount, literal("["), let name = string(), literal(","),
                let value = string(), literal("]")
            else { return nil }
            fields.append(HTTPFields.Field(name: name, value: value))
        }
        return HTTPFields(fields)
    }

    /// An optional `,"body":"…"` (UTF-8 text) or `,"bodyBase64":"…"`.
    private mutating func body() -> Data? {
        if literal(",\"body\":") { return stringBytes().map { Data($0) } }
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
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        // Room for the whole string at once: its escaped length, up to the closing quote, bounds the unescaped one.
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
        var out: [UInt8] = []
        out.reserveCapacity(min(end, bytes.count) - index)
        var high: UInt8 = 0
        var run = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                index += 1
                guard high >= 0x80 else { return out }
                return String(validating: out, as: UTF8.self) == nil ? nil : out
            }
            if byte < 0x20 { return nil }
            if byte == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                guard index + 1 < bytes.count else { return nil }
                guard let simple = JSONValue.unescaped(bytes[index + 1]) else { return nil }
                out.append(simple)
                index += 2
                run = index
                continue
            }
            high |= byte
            index += 1
        }
        return nil
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

    /// A JSON number as a finite `Double`, read as the tree reading reads it.
    private mutating func number() -> Double? {
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                UInt8(ascii: "e"), UInt8(ascii: "E"):
                index += 1
            default:
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                // A plain decimal (what the writer writes: `0.153`, `42`) is read directly, to the same double the
                // tree reading gives; any other form goes through the tree, which refuses what JSON does not allow.
                let digits = bytes[start..<index]
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
