import ConformCore
import ConformTraffic
import Foundation

/// Where an implementation names its own origin: the recorded origins become the target's in the expected answer.
extension Replayer {
    /// The origins a recorded exchange may name as its implementation's own: the one its request went to, and the
    /// origin of the upstream the recorder forwarded it to, when the recording's metadata names it.
    func recordedOrigins(_ exchange: RecordedExchange) -> [String] {
        var out: [String] = []
        if let origin = Self.recordedOrigin(exchange.request) { out.append(origin) }
        if let origin = options.upstreamOrigins[exchange.upstream] ?? options.upstreamOrigins["*"],
            !out.contains(origin)
        {
            out.append(origin)
        }
        return out
    }

    /// Whether `response` could name an origin at all: an origin holds `://`, and most answers hold it nowhere, so
    /// their origins need neither be worked out nor searched for.
    static func mayNameAnOrigin(_ response: HTTPResponse) -> Bool {
        func holdsSeparator(_ bytes: UnsafeRawBufferPointer) -> Bool {
            guard bytes.count >= 3 else { return false }
            for i in 0..<(bytes.count - 2)
            where bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == UInt8(ascii: "/")
                && bytes[i + 2] == UInt8(ascii: "/")
            {
                return true
            }
            return false
        }
        if response.body.withUnsafeBytes(holdsSeparator) { return true }
        return response.headerFields.contains { field in
            var value = field.value
            return value.withUTF8 { holdsSeparator(UnsafeRawBufferPointer($0)) }
        }
    }

    /// The origin a request as sent reaches: its URL's, or for an in-process target (an origin-form URL) `http://`
    /// and its `Host`, which is what an implementation reached that way names.
    static func targetOrigin(_ sent: HTTPRequest) -> String? {
        let origin = URLParts(sent.url).origin
        return origin.isEmpty ? recordedOrigin(sent) : origin
    }

    /// The origin a recorded request went to: its URL's, or `http://` and its recorded `Host`.
    static func recordedOrigin(_ request: HTTPRequest) -> String? {
        let origin = URLParts(request.url).origin
        if !origin.isEmpty { return origin }
        guard let host = request.headerFields["Host"], !host.isEmpty,
            HTTPSyntax.urlFormProblem("http://\(host)/") == nil
        else { return nil }
        return "http://\(host)"
    }

    /// `response` with `from` (an origin) replaced by `to` in its text body and header values; a longer origin that
    /// merely starts with `from` (`http://a.example` in `http://a.example.org`) is left alone.
    public static func mapOrigin(_ response: HTTPResponse, from: String, to: String) -> HTTPResponse {
        let pattern = Array(from.utf8)
        guard !pattern.isEmpty else { return response }
        var out = response
        // Bytes are searched as bytes: most bodies and header values do not name the origin, and are left as they are
        // (neither checked as UTF-8 nor copied). A body that does is changed only if it is text.
        if let body = response.body.withUnsafeBytes({ mappedOrigin(in: $0.bindMemory(to: UInt8.self), pattern, to) }),
            String(validating: response.body, as: UTF8.self) != nil
        {
            out.body = Data(body)
        }
        let fields = response.headerFields
        var mappedFields: [HTTPFields.Field]?
        for (index, field) in fields.enumerated() where field.value.utf8.count >= pattern.count {
            var value = field.value
            guard let mapped = value.withUTF8({ mappedOrigin(in: $0, pattern, to) }) else { continue }
            if mappedFields == nil { mappedFields = Array(fields) }
            mappedFields?[index] = HTTPFields.Field(name: field.name, value: String(decoding: mapped, as: UTF8.self))
        }
        if let mappedFields { out.headerFields = HTTPFields(mappedFields) }
        return out
    }

    /// `text` with each occurrence of the origin `pattern` replaced by `to`, or `nil` when none is; a longer origin
    /// that merely starts with it is left alone.
    private static func mappedOrigin(in text: UnsafeBufferPointer<UInt8>, _ pattern: [UInt8], _ to: String) -> [UInt8]?
    {
        guard text.count >= pattern.count, let first = pattern.first else { return nil }
        var splice = ByteSplice()
        var i = 0
        let last = text.count - pattern.count
        while i <= last {
            guard text[i] == first, pattern.indices.allSatisfy({ text[i + $0] == pattern[$0] }) else {
                i += 1
                continue
            }
            let end = i + pattern.count
            // An origin ends at a path, query, fragment, quote, space or the end of the text.
            if end == text.count || originEnds.contains(text[end]) { splice.replace(i..<end, of: text, with: to.utf8) }
            i = end
        }
        return splice.result(text)
    }

    private static let originEnds = Set("/?#\"' \\<>,)]}".utf8)
}
