import ConformCore
import ConformServer
import ConformTestSupport
import Foundation
import Synchronization
import Testing

/// Request heads the server refuses before any handler sees them, so a recording proxy never passes on or writes
/// down a request its readers would refuse or whose bytes it would change.
@Suite("HTTPServer wire rules")
struct HTTPServerWireRulesTests {
    /// Echoes like ``EchoHandler`` and counts what reaches it.
    final class CountingHandler: HTTPHandler, Sendable {
        let seen = Mutex<[String]>([])
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            seen.withLock { $0.append(request.url) }
            return EchoHandler().handle(request)
        }
    }

    struct Reply {
        var text: String
        var status: Int? {
            guard text.hasPrefix("HTTP/1.1 "), text.count >= 12 else { return nil }
            return Int(text.dropFirst(9).prefix(3))
        }
        var statusLines: Int { text.components(separatedBy: "HTTP/1.1 ").count - 1 }
        var envelope: (code: String, text: String)? {
            guard let split = text.range(of: "\r\n\r\n"),
                let body = try? JSONValue.parse(Data(text[split.upperBound...].utf8))
            else { return nil }
            return ErrorEnvelope.neutral.read(body)
        }
    }

    /// Sends `raw` on a fresh connection to a fresh server and reads until the server closes it (at most 10 s).
    func exchange(_ raw: [UInt8], limits: HTTPServerLimits = .default) throws -> (Reply, handled: [String]) {
        let handler = CountingHandler()
        let server = try HTTPServer(handler: handler, limits: limits)
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.boundPort, receiveTimeoutSeconds: 10)
        client.send(raw)
        let reply = Reply(text: String(decoding: client.readAll(), as: UTF8.self))
        return (reply, handler.seen.withLock { $0 })
    }

    func exchange(_ raw: String, limits: HTTPServerLimits = .default) throws -> (Reply, handled: [String]) {
        try exchange(Array(raw.utf8), limits: limits)
    }

    static let smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

    /// RFC 9112 section 5.1: a field name followed by whitespace before the colon is refused with 400; it is not
    /// ignored with its body then read as a second request.
    @Test(arguments: ["Content-Length : 5", "Content-Length\t: 5", "Content-Length  \t : 5"])
    func whitespaceBeforeTheColonIsRefused(_ field: String) throws {
        let (reply, handled) = try exchange("POST /echo HTTP/1.1\r\nHost: x\r\n\(field)\r\n\r\nhello\(Self.smuggled)")
        #expect(reply.status == 400, "\(reply.text.prefix(80).debugDescription)")
        #expect(reply.statusLines == 1, "exactly one answer: \(reply.text)")
        #expect(reply.envelope?.code == "BAD_REQUEST")
        #expect(reply.envelope?.text.contains("whitespace before the colon") == true, "\(reply.text)")
        #expect(reply.envelope?.text.contains("'Content-Length: value'") == true, "\(reply.text)")
        #expect(handled.isEmpty, "reached the handler: \(handled)")
    }

    @Test(arguments: ["X(Bad): 1", "X-Esc\u{1B}[31m: 1", "X-Del\u{7F}: 1", "X/Slash: 1", "X\"Quote\": 1"])
    func headerNamesThatAreNotTokensAreRefused(_ field: String) throws {
        let (reply, handled) = try exchange("GET /a HTTP/1.1\r\nHost: x\r\n\(field)\r\n\r\n")
        #expect(reply.status == 400, "\(field.debugDescription): \(reply.text.prefix(80).debugDescription)")
        #expect(handled.isEmpty, "reached the handler: \(handled)")
        if let envelope = reply.envelope {
            #expect(envelope.code == "BAD_REQUEST")
            #expect(envelope.text.contains("is not a token"), "\(envelope.text)")
            #expect(!envelope.text.contains("\u{1B}"), "control bytes are shown escaped: \(envelope.text)")
        }
    }

    @Test(arguments: ["G(T", "GE\u{7F}T", "G\u{1B}T", "GET\u{01}", "P\"ST"])
    func methodsThatAreNotTokensAreRefused(_ method: String) throws {
        let (reply, handled) = try exchange("\(method) /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(reply.status == 400, "\(method.debugDescription): \(reply.text.prefix(80).debugDescription)")
        #expect(handled.isEmpty, "reached the handler: \(handled)")
    }

    @Test(arguments: ["/a\u{1B}[2J", "/a\u{7F}b", "/a\u{01}b", "/q?x=\u{1B}]0;title\u{07}", "/a\u{0B}b"])
    func controlBytesInTheTargetAreRefused(_ target: String) throws {
        let (reply, handled) = try exchange("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(reply.status == 400, "\(target.debugDescription): \(reply.text.prefix(80).debugDescription)")
        #expect(reply.envelope?.code == "BAD_REQUEST", "\(reply.text)")
        #expect(reply.envelope?.text.contains("percent-encode") == true, "\(reply.text)")
        #expect(handled.isEmpty, "reached the handler: \(handled)")
    }

    @Test func targetsThatAreNotUTF8AreRefusedNotRewritten() throws {
        let head = Array("GET /caf".utf8) + [0xE9] + Array("?q=\u{FF} HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let (reply, handled) = try exchange(head)
        #expect(reply.status == 400, "\(reply.text.prefix(80).debugDescription)")
        #expect(reply.envelope?.text.contains("not UTF-8 (byte 0xE9 at offset 4)") == true, "\(reply.text)")
        #expect(handled.isEmpty, "reached the handler: \(handled)")
    }

    @Test func headerValuesThatAreNotUTF8AreRefusedNotRewritten() throws {
        let head = Array("GET /a HTTP/1.1\r\nHost: x\r\nX-Name: caf".utf8) + [0xE9, 0x0D, 0x0A, 0x0D, 0x0A]
        let (reply, handled) = try exchange(head)
        #expect(reply.status == 400, "\(reply.text.prefix(80).debugDescription)")
        #expect(reply.envelope?.text.contains("'X-Name' is not UTF-8") == true, "\(reply.text)")
        #expect(handled.isEmpty, "reached the handler: \(handled)")
    }

    @Test func controlBytesInHeaderValuesAreRefused() throws {
        let (reply, handled) = try exchange("GET /a HTTP/1.1\r\nHost: x\r\nX-Title: \u{1B}]0;owned\u{07}\r\n\r\n")
        #expect(reply.status == 400, "\(reply.text.prefix(80).debugDescription)")
        #expect(reply.envelope?.text.contains("the ESC byte 0x1B") == true, "\(reply.text)")
        #expect(handled.isEmpty, "reached the handler: \(handled)")
    }

    /// libmicrohttpd hands out C strings, so a NUL byte would silently cut off what follows it (and a folded line is
    /// dropped): such heads are refused instead of reaching the handler shortened.
    @Test(arguments: [
        ("GET /a\u{0}b HTTP/1.1\r\nHost: x\r\n\r\n", "request target", "b"),
        ("G\u{0}T /a HTTP/1.1\r\nHost: x\r\n\r\n", "method", "T"),
        ("GET /a HTTP/1.1\r\nHost: x\r\nX-A: b\u{0}hidden\r\n\r\n", "value of header field 'X-A'", "hidden"),
        ("GET /a HTTP/1.1\r\nX-A: b\u{0}hidden\r\nHost: x\r\n\r\n", "value of header field 'X-A'", "hidden"),
        ("GET /a HTTP/1.1\r\nHost: x\r\nX-A: b\r\n folded\r\nX-B: c\r\n\r\n", "value of header field 'X-A", "folded"),
    ])
    func bytesTheServerWouldDropAreRefused(_ head: String, _ piece: String, _ dropped: String) throws {
        let (reply, handled) = try exchange(head)
        #expect(reply.status == 400, "\(head.debugDescription): \(reply.text.prefix(80).debugDescription)")
        let text = reply.envelope?.text ?? ""
        // libmicrohttpd glues a folded line's text onto the field name, so only the name's start is certain.
        #expect(text.hasPrefix("the \(piece)"), "\(text)")
        #expect(text.contains("followed by bytes the server would drop ('\(dropped)')"), "\(text)")
        #expect(handled.isEmpty, "reached the handler: \(handled)")
    }

    /// UTF-8 beyond ASCII, tabs in values and every token character still reach the handler unchanged.
    @Test func wellFormedHeadsStillPass() throws {
        let (reply, handled) = try exchange(
            "GET /caf\u{E9}?q=%FF HTTP/1.1\r\nHost: x\r\nX-Name: Zo\u{EB}\tand \u{1F600}\r\n"
                + "X-!#$%&'*+-.^_`|~09az: ok\r\nConnection: close\r\n\r\n")
        #expect(reply.status == 200, "\(reply.text.prefix(200).debugDescription)")
        #expect(handled == ["/caf\u{E9}?q=%FF"])
        #expect(reply.text.contains("Zo\u{EB}\\tand \u{1F600}"), "\(reply.text)")
        #expect(reply.text.contains("X-!#$%&'*+-.^_`|~09az"), "\(reply.text)")
    }

    @Test func headerFieldsPerMessageAreCapped() throws {
        func head(fields: Int) -> String {
            "GET /many HTTP/1.1\r\n" + (0..<fields).map { "X-F\($0): v\r\n" }.joined() + "Connection: close\r\n\r\n"
        }
        let (atLimit, _) = try exchange(head(fields: HTTPServerLimits.default.maxHeaderFields - 1))
        #expect(atLimit.status == 200, "\(atLimit.text.prefix(80).debugDescription)")
        let (over, handled) = try exchange(head(fields: HTTPServerLimits.default.maxHeaderFields))
        #expect(over.status == 431, "\(over.text.prefix(80).debugDescription)")
        #expect(over.envelope?.code == "REQUEST_HEADER_FIELDS_TOO_LARGE")
        let cap = HTTPServerLimits.default.maxHeaderFields
        #expect(over.envelope?.text.contains("more than \(cap) header fields") == true, "\(over.text)")
        #expect(handled.isEmpty)

        let (scaled, _) = try exchange(head(fields: 10), limits: HTTPServerLimits(maxHeaderFields: 10))
        #expect(scaled.status == 431)
    }

    /// A chunked body has no declared length: over the limit it is read to its end and answered with 413 and the
    /// envelope, as a declared one is, instead of a closed connection.
    @Test func chunkedBodiesOverTheLimitGet413WithTheEnvelope() throws {
        var request = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<4 { request += "1F4\r\n" + String(repeating: "z", count: 500) + "\r\n" }
        let (reply, handled) = try exchange(
            request + "0\r\n\r\n" + Self.smuggled, limits: HTTPServerLimits(maxBodyBytes: 1000))
        #expect(reply.status == 413, "\(reply.text.prefix(80).debugDescription)")
        #expect(reply.statusLines == 1, "exactly one answer: \(reply.text)")
        #expect(reply.envelope?.code == "PAYLOAD_TOO_LARGE")
        #expect(reply.envelope?.text.contains("1000 bytes") == true)
        #expect(handled.isEmpty)

        // At the limit, the same body is served.
        var fits = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        for _ in 0..<2 { fits += "1F4\r\n" + String(repeating: "z", count: 500) + "\r\n" }
        let (served, _) = try exchange(fits + "0\r\n\r\n", limits: HTTPServerLimits(maxBodyBytes: 1000))
        #expect(served.status == 200, "\(served.text.prefix(80).debugDescription)")
        #expect(served.text.hasSuffix(String(repeating: "z", count: 1000)))
    }
}
