import ConformCore
import ConformCurl
import ConformReference
import ConformServer
import ConformTestSupport
import Foundation
import Testing

/// One raw HTTP/1.1 response: status line, header lines as sent, and the body bytes after the blank line.
private struct RawResponse {
    var statusLine: String
    var headers: [(name: String, value: String)]
    var body: String

    init(_ text: String) throws {
        let split = try #require(text.range(of: "\r\n\r\n"))
        var lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        statusLine = lines.removeFirst()
        headers = lines.map { line in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            return (String(line[..<colon]), line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
        }
        body = String(text[split.upperBound...])
    }

    func value(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }

    /// The chunks of a chunked body, decoded.
    func chunks() throws -> [String] {
        var rest = Substring(body)
        var chunks: [String] = []
        while true {
            let end = try #require(rest.range(of: "\r\n"))
            let size = try #require(Int(rest[..<end.lowerBound], radix: 16))
            rest = rest[end.upperBound...]
            if size == 0 { return chunks }
            let utf8 = Array(rest.utf8)
            chunks.append(String(decoding: utf8[0..<size], as: UTF8.self))
            rest = Substring(String(decoding: utf8[(size + 2)...], as: UTF8.self))
        }
    }
}

/// The chunked, headerCase, connectionClose and latency variants as a client sees them on the wire.
@Suite("Variants over HTTP")
struct ReferenceVariantWireTests {
    func serve(_ variants: Set<ReferenceVariant>, limits: HTTPServerLimits = .default) throws -> HTTPServer {
        let server = try HTTPServer(handler: ReferenceImplementation(variants: variants), limits: limits)
        try server.start()
        return server
    }

    static func register(_ body: String) -> String {
        "POST /mobile/1/appinstance HTTP/1.1\r\nHost: t\r\nAuthorization: App conform-app-code\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    static let unknownInstallation =
        "GET /mobile/1/appinstance/nobody HTTP/1.1\r\nHost: t\r\nAuthorization: App conform-app-code\r\n\r\n"

    @Test func chunkedSuccessesKeepTheConnectionAndErrorsKeepContentLength() throws {
        let server = try serve([.chunked])
        defer { server.stop() }
        let client = try RawClient(port: server.boundPort)
        let attributes = (0..<60).map { "\"attribute\($0)\":\"value-\($0)\"" }.joined(separator: ",")
        client.send(Self.register(#"{"os":"Android","customAttributes":{\#(attributes)}}"#))
        let first = try RawResponse(client.read(until: "\r\n0\r\n\r\n"))
        #expect(first.statusLine == "HTTP/1.1 200 OK")
        #expect(first.value("Transfer-Encoding") == "chunked")
        #expect(first.value("Content-Length") == nil)
        let chunks = try first.chunks()
        #expect(chunks.count >= 2, "a body over 1 KB arrives in several chunks")
        let json = try JSONValue.parse(chunks.joined())
        #expect(json["pushRegId"]?.stringValue?.isEmpty == false)
        #expect(json["customAttributes"]?["attribute59"] == "value-59")

        // The same connection answers again (keep-alive survives), and an error carries Content-Length (D15).
        client.send(Self.unknownInstallation)
        let second = try RawResponse(client.read(until: "}}}"))
        #expect(second.statusLine.hasPrefix("HTTP/1.1 400"))
        #expect(second.value("Content-Length") == String(second.body.utf8.count))
        #expect(second.value("Transfer-Encoding") == nil)
    }

    @Test func headerCaseSendsLowerCaseNamesInAnotherOrder() throws {
        let plain = try serve([])
        defer { plain.stop() }
        let cased = try serve([.headerCase])
        defer { cased.stop() }
        let request = "GET /mobile/1/baseurl HTTP/1.1\r\nHost: t\r\nAuthorization: App conform-app-code\r\n\r\n"
        var responses: [RawResponse] = []
        for server in [plain, cased] {
            let client = try RawClient(port: server.boundPort)
            client.send(request)
            responses.append(try RawResponse(client.read(until: "}")))
        }
        let plainNames = responses[0].headers.map(\.name)
        let casedNames = responses[1].headers.map(\.name)
        #expect(plainNames == ["Date", "Content-Type", "Content-Length"])
        // libmicrohttpd writes the framing headers (Content-Length, Transfer-Encoding, Connection) itself, in
        // its own spelling; every header the implementation chooses is lower-case, and `date` replaces its Date.
        #expect(casedNames == ["content-type", "date", "Content-Length"])
        #expect(casedNames.map { $0.lowercased() } != plainNames.map { $0.lowercased() }, "another order")
        #expect(try JSONValue.parse(responses[1].body)["baseUrl"] != nil)
    }

    @Test func connectionCloseReallyClosesTheConnection() throws {
        let server = try serve([.connectionClose])
        defer { server.stop() }
        let client = try RawClient(port: server.boundPort, receiveTimeoutSeconds: 10)
        let started = ContinuousClock.now
        // Two requests in one write: the server answers the first and closes, so the second gets no answer.
        client.send(Self.unknownInstallation + Self.unknownInstallation)
        let text = String(decoding: client.readAll(), as: UTF8.self)
        #expect(ContinuousClock.now - started < .seconds(5), "the server closed instead of waiting for more")
        let response = try RawResponse(text)
        #expect(response.value("Connection")?.lowercased() == "close")
        #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "exactly one response before the close")
    }

    /// `conform serve --variant latency` serves a thread per connection, so delayed clients never queue.
    @Test func latencyOverHTTPServesConcurrentClientsConcurrently() async throws {
        let reference = ReferenceImplementation(variants: [.latency])
        // Every handler call waits until `clients` calls are under way at once (or 60 s pass): served one at a time
        // they never are, however fast or busy the machine.
        let clients = 8
        let rendezvous = Rendezvous(reference, parties: clients)
        let server = try HTTPServer(handler: rendezvous, limits: HTTPServerLimits(threadPerConnection: true))
        try server.start()
        defer { server.stop() }
        let request = HTTPRequest(
            method: .get, url: server.baseURL + "/mobile/1/baseurl",
            headerFields: ["Authorization": "App conform-app-code"])
        let transport = CurlTransport(timeout: .seconds(90))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<clients { group.addTask { try await transport.send(request).status.code } }
            for try await status in group { #expect(status == 200) }
        }
        #expect(rendezvous.met, "the server never had \(clients) requests under way at once")
        // Keep-alive still works with a thread per connection, and each answer still comes late.
        let raw = try RawClient(port: server.boundPort)
        let baseURL = "GET /mobile/1/baseurl HTTP/1.1\r\nHost: t\r\nAuthorization: App conform-app-code\r\n\r\n"
        for _ in 0..<2 {
            let clock = ContinuousClock()
            let started = clock.now
            raw.send(baseURL)
            #expect(try RawResponse(raw.read(until: "}")).statusLine == "HTTP/1.1 200 OK")
            #expect(clock.now - started >= reference.latency)
        }
    }
}

/// A handler whose calls each wait until `parties` calls are under way at once, then all go on (at most 60 s).
final class Rendezvous: HTTPHandler, Sendable {
    private let inner: any HTTPHandler
    private let parties: Int
    private let condition = NSCondition()
    private nonisolated(unsafe) var underWay = 0
    private nonisolated(unsafe) var reached = false

    init(_ inner: any HTTPHandler, parties: Int) {
        self.inner = inner
        self.parties = parties
    }

    /// Whether `parties` calls were ever under way at once.
    var met: Bool {
        condition.lock()
        defer { condition.unlock() }
        return reached
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        condition.lock()
        underWay += 1
        if underWay >= parties {
            reached = true
            condition.broadcast()
        }
        let deadline = Date().addingTimeInterval(60)
        while !reached && condition.wait(until: deadline) {}
        underWay -= 1
        condition.unlock()
        return inner.handle(request)
    }
}
