import ConformCore
import Foundation

extension RecordedExchange {
    /// The exchange as one line of `exchanges.jsonl` (with the trailing newline), keys in a fixed order.
    public func jsonLine() -> String { String(decoding: jsonLineBytes(), as: UTF8.self) }

    /// The exchange as a line of at most `limit` bytes: bodies (the largest first), then headers, that would not
    /// fit are left out and named in ``omitted``, so one huge exchange never makes a recording unreadable.
    ///
    /// A header list of more than ``HTTPFields/maxCount`` fields is left out the same way, so every written line reads
    /// back as written.
    public func boundedJSONLine(limit: Int) -> String {
        String(decoding: boundedJSONLineBytes(limit: limit), as: UTF8.self)
    }

    /// ``boundedJSONLine(limit:)`` as bytes, what the writer writes.
    public func boundedJSONLineBytes(limit: Int) -> [UInt8] {
        // No body escapes to more than six bytes a byte (base64 to less), so small bodies need no count.
        let mostly = (request.body.count + response.body.count) * 6 + 32
        if mostly <= limit, request.headerFields.count <= HTTPFields.maxCount,
            response.headerFields.count <= HTTPFields.maxCount
        {
            let line = jsonLineBytes()
            if line.count <= limit { return line }
        }
        var bounded = self
        if request.headerFields.count > HTTPFields.maxCount {
            bounded.request.headerFields = HTTPFields()
            bounded.omitted.append(Self.tooManyFields("request", request.headerFields.count))
        }
        if response.headerFields.count > HTTPFields.maxCount {
            bounded.response.headerFields = HTTPFields()
            bounded.omitted.append(Self.tooManyFields("response", response.headerFields.count))
        }
        let bodies: [(name: String, size: Int, drop: (inout RecordedExchange) -> Void)] = [
            ("request.body", request.body.count, { $0.request.body = Data() }),
            ("response.body", response.body.count, { $0.response.body = Data() }),
        ]
        let largestFirst = bodies.sorted(by: { $0.size > $1.size }).filter { $0.size > 0 }
        // Bodies whose text alone passes the limit are left out before any line is built (the order and the notes
        // are those of building and measuring): a 60 MiB body of control bytes escapes to 360 MiB of line.
        var encoded = mostly <= limit ? 0 : Self.encodedBytes(request.body) + Self.encodedBytes(response.body)
        var dropped = 0
        for body in largestFirst where encoded > limit {
            encoded -= Self.encodedBytes(body.name == "request.body" ? request.body : response.body)
            body.drop(&bounded)
            bounded.omitted.append("\(body.name): \(body.size) bytes, over the recording line limit of \(limit)")
            dropped += 1
        }
        let line = bounded.jsonLineBytes()
        guard line.count > limit else { return line }
        for body in largestFirst.dropFirst(dropped) {
            body.drop(&bounded)
            bounded.omitted.append("\(body.name): \(body.size) bytes, over the recording line limit of \(limit)")
            let shorter = bounded.jsonLineBytes()
            if shorter.count <= limit { return shorter }
        }
        bounded.request.headerFields = HTTPFields()
        bounded.response.headerFields = HTTPFields()
        bounded.omitted.append("request.headers and response.headers: over the recording line limit of \(limit)")
        let bare = bounded.jsonLineBytes()
        if bare.count <= limit { return bare }
        // Only a URL (or flow) longer than the limit is left: keep the exchange's place with its number alone.
        bounded.request.url = String(request.url.prefix(1024))
        bounded.flow = String(flow.prefix(256))
        bounded.omitted.append("request.url: \(request.url.utf8.count) bytes, cut to 1024 characters")
        return bounded.jsonLineBytes()
    }

    /// The bytes `body` takes in a line as ``writeBody(_:into:)`` writes it (a JSON string, or base64), counted
    /// without writing it.
    static func encodedBytes(_ body: Data) -> Int {
        guard !body.isEmpty else { return 0 }
        guard let text = String(validating: body, as: UTF8.self) else { return (body.count + 2) / 3 * 4 + 16 }
        var bytes = 11
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09, 0x08, 0x0C: bytes += 2
            case ..<0x20: bytes += 6
            default: bytes += 1
            }
        }
        return bytes
    }

    /// The note for a header list over ``HTTPFields/maxCount``, the same from the writer and the readers.
    static func tooManyFields(_ message: String, _ count: Int) -> String {
        "\(message).headers: \(count) fields, more than the \(HTTPFields.maxCount) a message may have; left out"
    }

    /// Decodes one line of `exchanges.jsonl`; the error names the JSON path of what is wrong.
    public init(jsonLine line: some Collection<UInt8>) throws(RecordingLineError) {
        if let exchange = WrittenLine.exchange(line) {
            self = exchange
            return
        }
        try self.init(json: try JSONValueLine.parse(line))
    }

    init(json value: JSONValue) throws(RecordingLineError) {
        guard case .object = value else { throw RecordingLineError(path: "$", message: "expected an object") }
        let seq = try Self.int(value, "seq")
        let flow = try Self.string(value, "flow")
        let upstream = try Self.string(value, "upstream")
        let startedText = try Self.string(value, "startedAt")
        guard let started = ISOTimestamp.parse(startedText) else {
            throw RecordingLineError(path: "$.startedAt", message: "'\(startedText)' is not an ISO-8601 timestamp")
        }
        guard let duration = value["durationMs"]?.numberValue else {
            throw RecordingLineError(path: "$.durationMs", message: "expected a number")
        }
        guard let req = value["request"], case .object = req else {
            throw RecordingLineError(path: "$.request", message: "expected an object")
        }
        guard let res = value["response"], case .object = res else {
            throw RecordingLineError(path: "$.response", message: "expected an object")
        }
        var omitted: [String] = []
        let method = try Self.string(req, "method", at: "$.request")
        let url = try Self.string(req, "url", at: "$.request")
        let request = HTTPRequest(
            method: HTTPMethod(method), url: url,
            headerFields: try Self.headers(req, at: "$.request", omitted: &omitted),
            body: try Self.body(req, at: "$.request"))
        if let problem = HTTPSyntax.problem(in: request) {
            throw RecordingLineError(path: "$.request", message: "\(problem); it would change what goes on the wire")
        }
        let status = try Self.int(res, "status", at: "$.response")
        var response = HTTPResponse(
            status: HTTPStatus(status), headerFields: try Self.headers(res, at: "$.response", omitted: &omitted),
            body: try Self.body(res, at: "$.response"))
        if let raw = res["httpVersion"] {
            guard let text = raw.stringValue, HTTPVersionText.known.contains(text) else {
                throw RecordingLineError(
                    path: "$.response.httpVersion",
                    message: "expected one of \(HTTPVersionText.known.joined(separator: ", "))")
            }
            response.httpVersion = text
        }
        if let raw = value["omitted"] {
            guard let list = raw.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw RecordingLineError(path: "$.omitted", message: "expected an array of strings")
            }
            let written = list.compactMap(\.stringValue)
            omitted = written + omitted.filter { !written.contains($0) }
        }
        self.init(
            seq: seq, flow: flow, upstream: upstream, startedAt: started, durationMs: duration, request: request,
            response: response, omitted: omitted)
        if let raw = value["resynchronised"] {
            guard case .bool(let flag) = raw else {
                throw RecordingLineError(path: "$.resynchronised", message: "expected true or false")
            }
            resynchronised = flag
        }
    }

    private static func string(_ v: JSONValue, _ key: String, at base: String = "$") throws(RecordingLineError)
        -> String
    {
        guard let s = v[key]?.stringValue else {
            throw RecordingLineError(path: "\(base).\(key)", message: v[key] == nil ? "missing" : "expected a string")
        }
        return s
    }

    private static func int(_ v: JSONValue, _ key: String, at base: String = "$") throws(RecordingLineError) -> Int {
        guard case .int(let i)? = v[key] else {
            throw RecordingLineError(path: "\(base).\(key)", message: v[key] == nil ? "missing" : "expected an integer")
        }
        return i
    }

    /// The fields of `base`; a list over ``HTTPFields/maxCount`` is left out and noted in `omitted`.
    private static func headers(_ v: JSONValue, at base: String, omitted: inout [String]) throws(RecordingLineError)
        -> HTTPFields
    {
        guard let raw = v["headers"] else { return HTTPFields() }
        guard let list = raw.arrayValue else {
            throw RecordingLineError(path: "\(base).headers", message: "expected an array of [name, value] pairs")
        }
        if list.count > HTTPFields.maxCount {
            omitted.append(tooManyFields(String(base.dropFirst(2)), list.count))
            return HTTPFields()
        }
        var fields = HTTPFields()
        for (i, pair) in list.enumerated() {
            guard let p = pair.arrayValue, p.count == 2, let name = p[0].stringValue, let value = p[1].stringValue
            else {
                throw RecordingLineError(path: "\(base).headers[\(i)]", message: "expected [name, value] strings")
            }
            fields.append(name: name, value: value)
        }
        return fields
    }

    private static func body(_ v: JSONValue, at base: String) throws(RecordingLineError) -> Data {
        if let raw = v["body"] {
            guard let text = raw.stringValue else {
                throw RecordingLineError(path: "\(base).body", message: "expected a string")
            }
            return Data(text.utf8)
        }
        if let raw = v["bodyBase64"] {
            guard let text = raw.stringValue, let data = Data(base64Encoded: text) else {
                throw RecordingLineError(path: "\(base).bodyBase64", message: "expected base64 text")
            }
            return data
        }
        return Data()
    }
}

/// Why one line of `exchanges.jsonl` could not be read: a JSON syntax error (with column) or a wrong field (with path).
public struct RecordingLineError: Error, Sendable, Hashable {
    /// 1-based column of a syntax error, or 1 for a field error.
    public var column: Int
    /// JSON path of the wrong field, when the line is valid JSON.
    public var path: String?
    public var message: String
    /// The line was refused for a limit (too many values, too deep): the reader skips it and reads on.
    public var overLimit: Bool

    public init(column: Int = 1, path: String? = nil, message: String, overLimit: Bool = false) {
        self.column = column
        self.path = path
        self.message = message
        self.overLimit = overLimit
    }
}
