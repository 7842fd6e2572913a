import ConformCore
import Foundation

/// The exchange line written straight into UTF-8 bytes: what the recorder hands to `write(2)`, with no `String` grown
/// and copied out again and no `String` made of a body. The text is ``RecordedExchange/jsonLine()``'s, byte for byte
/// (``RecordedExchange/jsonLine()`` is this, decoded).
extension RecordedExchange {
    /// ``jsonLine()`` as bytes (with the trailing newline).
    public func jsonLineBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(estimatedLineBytes)
        writeJSONLine(into: &out)
        return out
    }

    /// Appends the line to `out`, members in the fixed order ``WrittenLine`` reads.
    func writeJSONLine(into out: inout [UInt8]) {
        out.append(contentsOf: "{\"seq\":".utf8)
        out.append(contentsOf: String(seq).utf8)
        out.append(contentsOf: ",\"flow\":".utf8)
        JSONValue.writeString(flow, into: &out)
        out.append(contentsOf: ",\"upstream\":".utf8)
        JSONValue.writeString(upstream, into: &out)
        out.append(contentsOf: ",\"startedAt\":\"".utf8)
        ISOTimestamp.write(startedAt, into: &out)
        out.append(contentsOf: "\",\"durationMs\":".utf8)
        JSONValue.double(durationMs).writeCompact(into: &out)
        out.append(contentsOf: ",\"request\":{\"method\":".utf8)
        JSONValue.writeString(request.method.rawValue, into: &out)
        out.append(contentsOf: ",\"url\":".utf8)
        JSONValue.writeString(request.url, into: &out)
        Self.writeHeaders(request.headerFields, into: &out)
        Self.writeBody(request.body, into: &out)
        out.append(contentsOf: "},\"response\":{\"status\":".utf8)
        out.append(contentsOf: String(response.status.code).utf8)
        // Written when it is not HTTP/1.1, which a line without it means.
        if let version = response.httpVersion, version != "HTTP/1.1" {
            out.append(contentsOf: ",\"httpVersion\":".utf8)
            JSONValue.writeString(version, into: &out)
        }
        Self.writeHeaders(response.headerFields, into: &out)
        Self.writeBody(response.body, into: &out)
        out.append(UInt8(ascii: "}"))
        if !omitted.isEmpty {
            out.append(contentsOf: ",\"omitted\":[".utf8)
            for (i, note) in omitted.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(note, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if resynchronised { out.append(contentsOf: ",\"resynchronised\":true".utf8) }
        out.append(contentsOf: "}\n".utf8)
    }

    /// About how long the line is (escapes aside), so it is built without growing its buffer.
    var estimatedLineBytes: Int {
        var bytes = 256 + flow.utf8.count + upstream.utf8.count + request.url.utf8.count
        for field in request.headerFields { bytes += field.name.utf8.count + field.value.utf8.count + 6 }
        for field in response.headerFields { bytes += field.name.utf8.count + field.value.utf8.count + 6 }
        return bytes + (request.body.count + response.body.count) * 9 / 8
    }

    private static func writeHeaders(_ fields: HTTPFields, into out: inout [UInt8]) {
        out.append(contentsOf: ",\"headers\":[".utf8)
        for (i, field) in fields.enumerated() {
            out.append(contentsOf: i > 0 ? ",[".utf8 : "[".utf8)
            JSONValue.writeString(field.name, into: &out)
            out.append(UInt8(ascii: ","))
            JSONValue.writeString(field.value, into: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
    }

    /// `,"body":"…"` for UTF-8 text, `,"bodyBase64":"…"` for anything else, nothing for an empty body.
    private static func writeBody(_ body: Data, into out: inout [UInt8]) {
        guard !body.isEmpty else { return }
        if isUTF8(body) {
            out.append(contentsOf: ",\"body\":".utf8)
            body.withUnsafeBytes { JSONValue.writeString(utf8: $0, into: &out) }
        } else {
            out.append(contentsOf: ",\"bodyBase64\":\"".utf8)
            out.append(contentsOf: body.base64EncodedString().utf8)
            out.append(UInt8(ascii: "\""))
        }
    }

    /// Whether `body` is valid UTF-8, as `String(validating:as:)` decides, without making a `String` of an ASCII body.
    static func isUTF8(_ body: Data) -> Bool {
        let ascii = body.withUnsafeBytes { raw -> Bool in
            var high: UInt8 = 0
            for byte in raw { high |= byte }
            return high < 0x80
        }
        return ascii || String(validating: body, as: UTF8.self) != nil
    }
}
