import ConformCore
import Foundation

/// Bodies as the application saw them: `Content-Encoding` (gzip, deflate, br, zstd) undone before anything stores,
/// redacts, checks or compares them, so no secret hides inside compressed bytes.
///
/// A decoded message loses its `Content-Encoding` header and keeps the fact in `X-Conform-Content-Encoding`;
/// `Content-Length` follows the decoded body.
public enum ContentDecoding {
    /// The header that keeps the encoding a body arrived in.
    public static let decodedHeader = "X-Conform-Content-Encoding"

    /// The result of decoding one body.
    public struct Decoded: Sendable {
        public var headerFields: HTTPFields
        public var body: Data
        /// Why the body could not be decoded (an unknown coding such as `compress`, or corrupt data); the body is then
        /// left out rather than kept undecodable.
        public var problem: String?
    }

    /// The largest body decoding may produce: a recording line holds no more (``RecordingLayout/maxLineBytes``), so a
    /// body decoding past it could never be kept. Decoding stops there and the body is left out, holding at most
    /// this much however small the compressed bytes were (a 2 MB gzip body inflates to gigabytes).
    public static let defaultLimit = RecordingLayout.maxLineBytes

    /// Decodes `body` as its `Content-Encoding` header says (codings applied in order are undone in reverse), each
    /// coding stopping at `limit` bytes of output: past it the body is left out and `problem` says so.
    public static func decode(_ fields: HTTPFields, _ body: Data, limit: Int = defaultLimit) -> Decoded {
        guard needsDecoding(fields, body) else { return Decoded(headerFields: fields, body: body) }
        let codings = fields.values(for: "Content-Encoding")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty, !body.isEmpty else { return Decoded(headerFields: fields, body: body) }
        var out = body
        for coding in codings.reversed() {
            do throws(Decompression.Failure) {
                switch coding {
                case "gzip", "x-gzip": out = try Decompression.inflate(out, limit: limit)
                // "deflate" is zlib-wrapped by the standard, raw deflate by some servers: try both.
                case "deflate":
                    do {
                        out = try Decompression.inflate(out, limit: limit)
                    } catch  where !error.overLimit {
                        out = try Decompression.inflate(out, raw: true, limit: limit)
                    }
                case "br": out = try Decompression.brotli(out, limit: limit)
                case "zstd": out = try Decompression.zstd(out, limit: limit)
                default:
                    return Decoded(
                        headerFields: fields, body: Data(),
                        problem: "\(body.count) bytes in '\(coding)' encoding, which Conform cannot decode")
                }
            } catch  where error.overLimit {
                return Decoded(
                    headerFields: fields, body: Data(),
                    problem:
                        "\(body.count) bytes in '\(coding)' encoding that decode to more than \(limit) bytes, "
                        + "more than a recording keeps; decoding stopped there")
            } catch {
                return Decoded(
                    headerFields: fields, body: Data(),
                    problem: "\(body.count) bytes in '\(coding)' encoding that do not decode (\(error.message))")
            }
        }
        var headers = HTTPFields(fields.filter { $0.name.lowercased() != "content-encoding" })
        headers.append(name: decodedHeader, value: codings.joined(separator: ", "))
        if headers["Content-Length"] != nil { headers["Content-Length"] = String(out.count) }
        return Decoded(headerFields: headers, body: out)
    }

    /// Whether a body may need decoding: it has bytes and its message names a coding. Most messages carry none, and
    /// are passed on without building a list of codings or copying the message.
    static func needsDecoding(_ fields: HTTPFields, _ body: Data) -> Bool {
        !body.isEmpty && fields.contains("Content-Encoding")
    }

    /// Headers of a body that a tool already decoded (HAR text is decoded by definition) while keeping
    /// `Content-Encoding`: the header moves to ``decodedHeader``. Bytes that still look gzip- or zlib-compressed
    /// (a tool that stored them raw) keep it, to be decoded.
    public static func alreadyDecoded(_ fields: HTTPFields, _ body: Data) -> HTTPFields {
        guard fields.contains("Content-Encoding"), !Decompression.looksCompressed(body) else { return fields }
        let codings = fields.values(for: "Content-Encoding").joined(separator: ", ")
        var headers = HTTPFields(fields.filter { $0.name.lowercased() != "content-encoding" })
        headers.append(name: decodedHeader, value: codings)
        if headers["Content-Length"] != nil { headers["Content-Length"] = String(body.count) }
        return headers
    }

    /// The response with its body decoded; an undecodable body stays as it came (for comparison, not storage).
    public static func decoded(_ response: HTTPResponse, limit: Int = defaultLimit) -> HTTPResponse {
        guard needsDecoding(response.headerFields, response.body) else { return response }
        let result = decode(response.headerFields, response.body, limit: limit)
        guard result.problem == nil else { return response }
        var out = response
        out.headerFields = result.headerFields
        out.body = result.body
        return out
    }

    /// The exchange with both bodies decoded; what cannot be decoded is left out and named in `omitted`.
    public static func decoded(_ exchange: RecordedExchange, limit: Int = defaultLimit) -> RecordedExchange {
        guard
            needsDecoding(exchange.request.headerFields, exchange.request.body)
                || needsDecoding(exchange.response.headerFields, exchange.response.body)
        else { return exchange }
        var out = exchange
        let request = decode(exchange.request.headerFields, exchange.request.body, limit: limit)
        out.request.headerFields = request.headerFields
        out.request.body = request.body
        if let problem = request.problem { out.omitted.append("request.body: \(problem)") }
        let response = decode(exchange.response.headerFields, exchange.response.body, limit: limit)
        out.response.headerFields = response.headerFields
        out.response.body = response.body
        if let problem = response.problem { out.omitted.append("response.body: \(problem)") }
        return out
    }
}
