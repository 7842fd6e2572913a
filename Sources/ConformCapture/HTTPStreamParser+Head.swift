import ConformCore
import Foundation

extension HTTPStreamParser {
    /// How a message's body is framed, as its head says.
    enum Framing: Equatable {
        /// This many bytes (none for a 1xx, an answer to `HEAD`, 204 and 304).
        case fixed(Int)
        case chunked
        /// Until the connection closes: a response with neither a length nor the chunked coding.
        case untilClose
        /// `101 Switching Protocols` or a successful `CONNECT`: what follows is not HTTP/1.1.
        case switchesProtocol
    }

    /// A message's start line and header fields, and how its body is framed: a function of the head's lines alone
    /// (without the empty line that ends them), for a message in `role` under `limits`; for a response,
    /// `answersHead` says whether its request was `HEAD` and `answersConnect` whether it was `CONNECT`.
    static func head(
        _ lines: [String], role: Role, limits: CaptureLimits, firstByteAt: Double, answersHead: Bool,
        answersConnect: Bool
    ) -> Result<(Message, Framing), Failure> {
        guard lines.count <= limits.maxHeaderFields else {
            return .failure(Failure("more than \(limits.maxHeaderFields) header fields"))
        }
        let startLine = lines[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        var fields = HTTPFields()
        for line in lines.dropFirst() {
            if line.first == " " || line.first == "\t" {
                return .failure(Failure("a header field folded over lines (obs-fold)"))
            }
            guard let colon = line.firstIndex(of: ":") else {
                return .failure(Failure("a header line without a colon"))
            }
            let name = String(line[..<colon])
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPSyntax.isTokenByte) else {
                return .failure(Failure("a header field name that is not a token"))
            }
            fields.append(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t"]))
        }
        var message = Message(
            startLine: startLine, headerFields: fields, body: [], firstByteAt: firstByteAt, lastByteAt: firstByteAt)
        let chunked: Bool
        let codings = fields.values(for: "Transfer-Encoding").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        chunked = codings.last == "chunked"
        let lengths = Set(
            fields.values(for: "Content-Length").flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces) })
        var length: Int?
        if !lengths.isEmpty {
            guard lengths.count == 1, let text = lengths.first, !text.isEmpty, text.count <= 15,
                text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), let value = Int(text)
            else {
                return .failure(Failure("an invalid or ambiguous Content-Length"))
            }
            length = value
        }
        if let length, length > limits.maxMessageBytes {
            return .failure(Failure("a body of \(length) bytes, over the limit of \(limits.maxMessageBytes)"))
        }
        switch role {
        case .request:
            guard startLine.count == 3, !startLine[0].isEmpty, startLine[0].utf8.allSatisfy(HTTPSyntax.isTokenByte),
                !startLine[1].isEmpty, startLine[2] == "HTTP/1.1" || startLine[2] == "HTTP/1.0"
            else {
                return .failure(Failure("not an HTTP/1.x request line"))
            }
            if !codings.isEmpty {
                guard chunked else { return .failure(Failure("a request body framed by neither chunked nor length")) }
                return .success((message, .chunked))
            }
            return .success((message, .fixed(length ?? 0)))
        case .response:
            guard startLine.count >= 2, startLine[0] == "HTTP/1.1" || startLine[0] == "HTTP/1.0",
                startLine[1].count == 3, let status = Int(startLine[1])
            else {
                return .failure(Failure("not an HTTP/1.x status line"))
            }
            if status == 101 || (answersConnect && (200..<300).contains(status)) {
                return .success((message, .switchesProtocol))
            }
            if (100..<200).contains(status) {
                message.isInterim = true
                return .success((message, .fixed(0)))
            } else if answersHead || status == 204 || status == 304 {
                return .success((message, .fixed(0)))
            } else if chunked {
                return .success((message, .chunked))
            } else if !codings.isEmpty {
                return .success((message, .untilClose))
            } else if let length {
                return .success((message, .fixed(length)))
            } else {
                return .success((message, .untilClose))
            }
        }
    }

    struct Failure: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
