import ConformCore
import Foundation

extension RecordedExchange {
    /// The exchange as one line of `exchanges.jsonl` (with the trailing newline), keys in a fixed order.
    public func jsonLine() -> String {
        var out = ""
        out.reserveCapacity(estimatedLineBytes)
        out += "{\"seq\":\(seq),\"flow\":"
        JSONValue.writeString(flow, into: &out)
        out += ",\"upstream\":"
        JSONValue.writeString(upstream, into: &out)
        out += ",\"startedAt\":\"\(ISOTimestamp.format(startedAt))\",\"durationMs\":"
        out += JSONValue.double(durationMs).serialized()
        out += ",\"request\":{\"method\":"
        JSONValue.writeString(request.method.rawValue, into: &out)
        out += ",\"url\":"
        JSONValue.writeString(request.url, into: &out)
        Self.writeHeaders(request.headerFields, into: &out)
        Self.writeBody(request.body, into: &out)
        out += "},\"response\":{\"status\":\(response.status.code)"
        // Written when it is not HTTP/1.1, which a line without it means.
        if let version = response.httpVersion, version != "HTTP/1.1" {
            out += ",\"httpVersion\":"
            JSONValue.writeString(version, into: &out)
        }
        Self.writeHeaders(response.headerFields, into: &out)
        Self.writeBody(response.body, into: &out)
        out += "}"
        if !omitted.isEmpty {
            out += ",\"omitted\":["
            for (i, note) in omitted.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(note, into: &out)
            }
            out += "]"
        }
        if resynchronised { out += ",\"resynchronised\":true" }
        out += "}\n"
        return out
    }

    /// About how long ``jsonLine()`` is (escapes aside), so the line is built without growing its buffer.
    private var estimatedLineBytes: Int {
        var bytes = 256 + flow.utf8.count + upstream.utf8.count + request.url.utf8.count
        for field in request.headerFields { bytes += field.name.utf8.count + field.value.utf8.count + 6 }
        for field in response.headerFields { bytes += field.name.utf8.count + field.value.utf8.count + 6 }
        return bytes + (request.body.count + response.body.count) * 9 / 8
    }

    /// The exchange as a line of at most `limit` bytes: bodies (the largest first), then headers, that would not
    /// fit are left out and named in ``omitted``, so one huge exchange never makes a recording unreadable.
    ///
    /// A header list of more than ``HTTPFields/maxCount`` fields is left out the same way, so every written line reads
    /// back as written.
    public func boundedJSONLine(limit: Int) -> String {
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
        var encoded = Self.encodedBytes(request.body) + Self.encodedBytes(response.body)
        var dropped = 0
        for body in largestFirst where encoded > limit {
            encoded -= Self.encodedBytes(body.name == "request.body" ? request.body : response.body)
            body.drop(&bounded)
            bounded.omitted.append("\(body.name): \(body.size) bytes, over the recording line limit of \(limit)")
            dropped += 1
        }
        let line = bounded.jsonLine()
        guard line.utf8.count > limit else { return line }
        for body in largestFirst.dropFirst(dropped) {
            body.drop(&bounded)
            bounded.omitted.append("\(body.name): \(body.size) bytes, over the recording line limit of \(limit)")
            let shorter = bounded.jsonLine()
            if shorter.utf8.count <= limit { return shorter }
        }
        bounded.request.headerFields = HTTPFields()
        bounded.response.headerFields = HTTPFields()
        bounded.omitted.append("request.headers and response.headers: over the recording line limit of \(limit)")
        let bare = bounded.jsonLine()
        if bare.utf8.count <= limit { return bare }
        // Only a URL (or flow) longer than the limit is left: keep the exchange's place with its number alone.
        bounded.request.url = String(request.url.prefix(1024))
        bounded.flow = String(flow.prefix(256))
        bounded.omitted.append("request.url: \(request.url.utf8.count) bytes, cut to 1024 characters")
        return bounded.jsonLine()
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

    private static func writeHeaders(_ fields: HTTPFields, into out: inout String) {
        out += ",\"headers\":["
        for (i, field) in fields.enumerated() {
            if i > 0 { out += "," }
            out += "["
            JSONValue.writeString(field.name, into: &out)
            out += ","
            JSONValue.writeString(field.value, into: &out)
            out += "]"
        }
        out += "]"
    }

    private static func writeBody(_ body: Data, into out: inout String) {
        guard !body.isEmpty else { return }
        if let text = String(validating: body, as: UTF8.self) {
            out += ",\"body\":"
            JSONValue.writeString(text, into: &out)
        } else {
            out += ",\"bodyBase64\":\"\(body.base64EncodedString())\""
        }
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
