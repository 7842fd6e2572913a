import ConformCore
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@testable import ConformCurl

/// The plain HTTP client against libcurl, side by side over real sockets: the same request bytes on the wire, and the
/// same response (status, fields, body, version) or the same kind of failure for every answer a server may give.
@Suite struct PlainHTTPClientTests {
    /// A transport through libcurl, and one through the plain client, for the same server.
    static func clients(maxBodyBytes: Int = ResponseLimits.defaultMaxBodyBytes) -> (
        curl: CurlTransport, plain: CurlTransport
    ) {
        (
            CurlTransport(timeout: .seconds(10), maxBodyBytes: maxBodyBytes, plainHTTP: false),
            CurlTransport(timeout: .seconds(10), maxBodyBytes: maxBodyBytes, plainHTTP: true)
        )
    }

    struct RequestCase: Sendable, CustomTestStringConvertible {
        let name: String
        let method: String
        let path: String
        let fields: [(String, String)]
        let body: String
        var testDescription: String { name }

        func request(_ base: String) -> HTTPRequest {
            var headers = HTTPFields()
            for (name, value) in fields { headers.append(name: name, value: value) }
            return HTTPRequest(
                method: HTTPMethod(rawValue: method), url: base + path, headerFields: headers, body: Data(body.utf8))
        }
    }

    static let requests: [RequestCase] = [
        RequestCase(
            name: "GET with a query, fields, an empty field and Accept", method: "GET", path: "/a/b?q=1&r=%20",
            fields: [("X-One", "1"), ("X-Empty", ""), ("Accept", "text/plain")], body: ""),
        RequestCase(
            name: "POST with a JSON body", method: "POST", path: "/mobile/1/appinstance",
            fields: [("Content-Type", "application/json"), ("Authorization", "App abc")], body: #"{"a":1}"#),
        RequestCase(name: "POST without a body", method: "POST", path: "/p", fields: [], body: ""),
        RequestCase(name: "PUT without a body or type", method: "PUT", path: "/p", fields: [], body: ""),
        RequestCase(name: "PATCH with a body and no type", method: "PATCH", path: "/p", fields: [], body: "x=1"),
        RequestCase(name: "DELETE with a body", method: "DELETE", path: "/d", fields: [], body: "gone"),
        RequestCase(name: "GET with a body", method: "GET", path: "/g", fields: [], body: "odd"),
        RequestCase(name: "HEAD", method: "HEAD", path: "/h", fields: [("X-H", "h")], body: ""),
        RequestCase(
            name: "a Content-Length of its own, replaced", method: "POST", path: "/c",
            fields: [("Content-Length", "999")], body: "four"),
        RequestCase(name: "its own Host", method: "GET", path: "/host", fields: [("Host", "example.test")], body: ""),
        RequestCase(name: "a fragment", method: "GET", path: "/f?x=1#frag", fields: [], body: ""),
        RequestCase(name: "a query and no path", method: "GET", path: "?only=query", fields: [], body: ""),
        RequestCase(name: "no path at all", method: "GET", path: "", fields: [], body: ""),
        RequestCase(name: "an extension method", method: "PURGE", path: "/cache", fields: [], body: ""),
    ]

    @Test(arguments: requests)
    func writesTheBytesLibcurlWrites(_ testCase: RequestCase) async throws {
        let received = Mutex<[String]>([])
        let server = try RawServer { connection in
            let request = connection.readRequest()
            received.withLock { $0.append(request) }
            connection.write("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
        }
        defer { server.stop() }
        let (curl, plain) = Self.clients()
        _ = try await curl.send(testCase.request(server.baseURL))
        _ = try await plain.send(testCase.request(server.baseURL))
        let both = received.withLock { $0 }
        try #require(both.count == 2)
        #expect(both[1] == both[0], "libcurl:\n\(both[0])\nplain:\n\(both[1])")
    }

    struct ResponseCase: Sendable, CustomTestStringConvertible {
        let name: String
        let raw: [UInt8]
        var method = "GET"
        var maxBodyBytes = ResponseLimits.defaultMaxBodyBytes
        var testDescription: String { name }

        init(
            _ name: String, _ raw: String, method: String = "GET",
            maxBodyBytes: Int = ResponseLimits.defaultMaxBodyBytes
        ) {
            self.name = name
            self.raw = Array(raw.utf8)
            self.method = method
            self.maxBodyBytes = maxBodyBytes
        }

        init(_ name: String, bytes: [UInt8]) {
            self.name = name
            self.raw = bytes
        }
    }

    static let responses: [ResponseCase] = [
        ResponseCase("a length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello"),
        ResponseCase(
            "chunked, with an extension and a trailer",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
        ),
        ResponseCase(
            "chunked, upper-case sizes",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n"),
        ResponseCase("until the connection ends", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end"),
        ResponseCase(
            "an interim 100 first", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"),
        ResponseCase("204 without a body", "HTTP/1.1 204 No Content\r\nX: y\r\n\r\n"),
        ResponseCase("304 without a body", "HTTP/1.1 304 Not Modified\r\nETag: \"e\"\r\n\r\n"),
        ResponseCase("HTTP/1.0 with a length", "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabc"),
        ResponseCase("HTTP/1.0 until the end", "HTTP/1.0 200 OK\r\n\r\nall of it"),
        ResponseCase("bare line feeds and padded values", "HTTP/1.1 200 OK\nContent-Length: 2\nX-B:  spaced  \n\nhi"),
        ResponseCase("a folded field", "HTTP/1.1 200 OK\r\nX-Fold: a\r\n  b\r\nContent-Length: 0\r\n\r\n"),
        ResponseCase("no reason phrase", "HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n"),
        ResponseCase("an answer to HEAD with a length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", method: "HEAD"),
        ResponseCase("a body cut short", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"),
        ResponseCase("a chunked body cut short", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel"),
        ResponseCase("nothing at all", ""),
        ResponseCase("not HTTP", bytes: [0x00, 0xFF] + Array("not http at all\r\n\r\n".utf8)),
        ResponseCase(
            "a length over the limit",
            "HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n" + String(repeating: "x", count: 2000),
            maxBodyBytes: 1024),
        ResponseCase(
            "a chunked body over the limit",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7D0\r\n" + String(repeating: "x", count: 2000)
                + "\r\n0\r\n\r\n",
            maxBodyBytes: 1024),
        ResponseCase(
            "a body of 300 KB",
            "HTTP/1.1 200 OK\r\nContent-Length: 300000\r\n\r\n" + String(repeating: "y", count: 300_000)),
    ]

    func outcome(_ send: () async throws -> HTTPResponse) async -> Result<HTTPResponse, any Error> {
        do { return .success(try await send()) } catch { return .failure(error) }
    }

    /// What a client made of an answer, in the terms that judge it.
    enum Reading: Equatable, CustomStringConvertible {
        case response(status: Int, fields: [String], body: Data, version: String?)
        case failure(TransportError.Kind, tooLarge: String?)

        init(_ outcome: Result<HTTPResponse, any Error>) {
            switch outcome {
            case .success(let response):
                self = .response(
                    status: response.status.code, fields: response.headerFields.map { "\($0.name): \($0.value)" },
                    body: response.body, version: response.httpVersion)
            case .failure(let error):
                let transport = error as? TransportError
                self = .failure(
                    transport?.kind ?? .other, tooLarge: transport?.kind == .tooLarge ? transport?.message : nil)
            }
        }

        var description: String {
            switch self {
            case .response(let status, let fields, let body, let version):
                "\(version ?? "?") \(status) \(fields) \(body.count) bytes"
            case .failure(let kind, let message): "failure \(kind.rawValue) \(message ?? "")"
            }
        }
    }

    @Test(arguments: responses)
    func readsAnswersAsLibcurlDoes(_ testCase: ResponseCase) async throws {
        let server = try RawServer { connection in
            _ = connection.readRequest()
            connection.write(testCase.raw)
        }
        defer { server.stop() }
        let (curl, plain) = Self.clients(maxBodyBytes: testCase.maxBodyBytes)
        let request = HTTPRequest(method: HTTPMethod(rawValue: testCase.method), url: server.baseURL + "/r")
        let byCurl = Reading(await outcome { try await curl.send(request) })
        let byPlain = Reading(await outcome { try await plain.send(request) })
        #expect(byPlain == byCurl)
    }

    /// Where the plain client is stricter than libcurl: a head the connection's end cuts short (libcurl answers it as
    /// a response without fields) and a status line of another major version than the HTTP/1.1 asked for (libcurl
    /// takes `HTTP/2 200` on a plain connection) are invalid responses, never a 200.
    @Test(arguments: [
        ResponseCase("a head cut short", "HTTP/1.1 200 OK\r\nContent-Le"),
        ResponseCase("HTTP/2 over plain HTTP/1.1", "HTTP/2 200\r\ncontent-length: 0\r\n\r\n"),
    ])
    func answersLibcurlTakesAreInvalid(_ testCase: ResponseCase) async throws {
        let server = try RawServer { connection in
            _ = connection.readRequest()
            connection.write(testCase.raw)
        }
        defer { server.stop() }
        let (curl, plain) = Self.clients()
        let request = HTTPRequest(method: .get, url: server.baseURL + "/r")
        guard case .response(status: 200, _, _, _) = Reading(await outcome { try await curl.send(request) }) else {
            Issue.record("libcurl no longer takes \(testCase.name) as a 200: the two clients may agree again")
            return
        }
        #expect(Reading(await outcome { try await plain.send(request) }) == .failure(.invalidResponse, tooLarge: nil))
    }

    /// Exchanges one after another go over one connection, and a connection the server closed while idle is replaced
    /// without the exchange failing.
    @Test func reusesConnectionsAndReplacesOnesTheServerClosed() async throws {
        let connections = Atomic(0)
        let server = try RawServer { connection in
            connections.add(1, ordering: .relaxed)
            // Two answers on each connection, then the server closes it while the client holds it idle.
            var pending: [UInt8] = []
            for _ in 0..<2 {
                guard Self.readHead(connection.fd, &pending) else { return }
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            }
        }
        defer { server.stop() }
        let (_, plain) = Self.clients()
        var reused: [Bool] = []
        for _ in 0..<6 {
            let response = try await plain.send(HTTPRequest(method: .get, url: server.baseURL + "/k"))
            #expect(response.body == Data("ok".utf8))
            reused.append(response.timing?.reusedConnection ?? false)
        }
        #expect(reused.filter { !$0 }.count == connections.load(ordering: .relaxed))
        #expect(connections.load(ordering: .relaxed) == 3)
    }

    /// An answer that comes before the whole request is written (a server refusing a large body unread) ends the
    /// exchange, and the connection, holding the rest of that request, is not used again.
    @Test func anAnswerBeforeTheWholeRequestLeavesItsConnectionUnused() async throws {
        let connections = Atomic(0)
        let release = DispatchSemaphore(value: 0)
        let server = try RawServer { connection in
            connections.add(1, ordering: .relaxed)
            var pending: [UInt8] = []
            guard Self.readHead(connection.fd, &pending) else { return }
            if connections.load(ordering: .relaxed) == 1 {
                // The first connection: refuse the body, and hold the connection open without reading any more.
                connection.write("HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n")
                _ = release.wait(timeout: .now() + 60)
            } else {
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            }
        }
        defer {
            release.signal()
            server.stop()
        }
        let (_, plain) = Self.clients()
        // Larger than what the two sockets' buffers hold, so that most of it is still unwritten when the answer comes.
        let large = HTTPRequest(
            method: .post, url: server.baseURL + "/upload", body: Data(repeating: 0x61, count: 32 * 1024 * 1024))
        let refused = try await plain.send(large)
        #expect(refused.status.code == 413)
        let next = try await plain.send(HTTPRequest(method: .get, url: server.baseURL + "/next"))
        #expect(next.status.code == 200)
        #expect(next.timing?.reusedConnection == false)
        #expect(connections.load(ordering: .relaxed) == 2)
    }

    /// Reads one request head (a request without a body) from `fd`, keeping what follows it in `pending`.
    static func readHead(_ fd: Int32, _ pending: inout [UInt8]) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Long enough for a loaded machine: the test's own sends may wait for a thread.
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let at = pending.indices.first(where: { pending[$0...].starts(with: end) }) {
                pending.removeFirst(at + end.count)
                return true
            }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return false }
            pending.append(contentsOf: buffer[0..<count])
        }
    }

    @Test func aRefusedConnectionCannotRunAsWithLibcurl() async throws {
        let refusing = try RefusingPort()
        let (curl, plain) = Self.clients()
        let request = HTTPRequest(method: .get, url: refusing.baseURL + "/x")
        let byCurl = Reading(await outcome { try await curl.send(request) })
        let byPlain = Reading(await outcome { try await plain.send(request) })
        #expect(byCurl == .failure(.connectionRefused, tooLarge: nil))
        #expect(byPlain == byCurl)
    }

    @Test func aSilentServerFailsByTheRequestsTimeout() async throws {
        let server = try RawServer { connection in
            _ = connection.readRequest()
            connection.waitForClose()
        }
        defer { server.stop() }
        let (_, plain) = Self.clients()
        var request = HTTPRequest(method: .get, url: server.baseURL + "/slow")
        request.timeout = .milliseconds(200)
        let failure = await outcome { try await plain.send(request) }
        #expect(Reading(failure) == .failure(.timeout, tooLarge: nil))
        // Ended by the client's own deadline (the server never answers nor closes).
        guard case .failure(let error as TransportError) = failure else { return }
        #expect(error.message.contains("Operation timed out after"), "\(error.message)")
    }

    /// A cancelled send ends, running or waiting for its turn, and the slot it held serves the next exchange.
    @Test func cancelledSendsEndAndFreeTheirSlot() async throws {
        let release = DispatchSemaphore(value: 0)
        let held = Atomic(0)
        let queuedSent = Atomic(0)
        let server = try RawServer { connection in
            let request = connection.readRequest()
            if request.hasPrefix("GET /held ") {
                held.add(1, ordering: .sequentiallyConsistent)
                _ = release.wait(timeout: .now() + 60)
            } else {
                if request.hasPrefix("GET /queued ") { queuedSent.add(1, ordering: .sequentiallyConsistent) }
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            }
        }
        defer {
            release.signal()
            server.stop()
        }
        let plain = CurlTransport(timeout: .seconds(60), maxConcurrentExchanges: 1, plainHTTP: true)
        let running = Task { try await plain.send(HTTPRequest(method: .get, url: server.baseURL + "/held")) }
        // Progress-based: once the server holds the first request, the second waits for the one slot.
        try #require(await Eventually.holds(within: .seconds(60)) { held.load(ordering: .sequentiallyConsistent) == 1 })
        let queued = Task { try await plain.send(HTTPRequest(method: .get, url: server.baseURL + "/queued")) }
        try #require(await Eventually.holds(within: .seconds(60)) { plain.waitingExchanges == 1 })
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.value }
        running.cancel()
        await #expect(throws: CancellationError.self) { try await running.value }
        let after = try await plain.send(HTTPRequest(method: .get, url: server.baseURL + "/after"))
        #expect(after.status.code == 200)
        #expect(queuedSent.load(ordering: .sequentiallyConsistent) == 0, "the cancelled queued exchange was sent")
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080/a?b#c", "127.0.0.1:8080", "/a?b"),
        ("http://127.0.0.1/x", "127.0.0.1", "/x"),
        ("http://127.0.0.1:80/x", "127.0.0.1", "/x"),
        ("http://[::1]:9/", "[::1]:9", "/"),
        ("http://10.0.0.1:0009", "10.0.0.1:9", "/"),
    ])
    func numericURLsAreTheClients(_ url: String, _ host: String, _ target: String) throws {
        let parsed = try #require(PlainHTTPTarget(url))
        #expect(parsed.host == host)
        #expect(parsed.target == target)
    }

    /// The IPv4 reading takes what `inet_pton` takes, to the byte: edge cases, then seeded dotted strings.
    @Test func ipv4AddressesAreReadAsInetPtonReadsThem() {
        var texts = [
            "1.2.3.4", "0.0.0.0", "255.255.255.255", "01.2.3.4", "1.2.3.04", "256.1.1.1", "1.2.3", "1.2.3.4.5",
            "1..2.3", "", ".1.2.3", "1.2.3.", "1.2.3.4 ", "1.2.3.-4", "1000.2.3.4", "10.0.0.10", "100.200.250.255",
        ]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789.0123456789.25".utf8)
        for _ in 0..<5000 {
            let length = Int.random(in: 1...16, using: &generator)
            texts.append(
                String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self))
        }
        for text in texts {
            var expected = [UInt8](repeating: 0, count: 4)
            let parsed = expected.withUnsafeMutableBytes { inet_pton(AF_INET, text, $0.baseAddress) } == 1
            #expect(PlainHTTPTarget.ipv4(Substring(text).utf8[...]) == (parsed ? expected : nil), "\(text)")
        }
    }

    @Test(arguments: [
        "https://127.0.0.1/", "http://localhost:8080/", "http://example.test/", "http://user@127.0.0.1/",
        "http://[::0:1]/", "http://[fe80::1%25eth0]/", "http://127.0.0.1:0/", "http://127.0.0.1:65536/",
        "http://127.0.0.1:/", "http://127.0.0.1/a b", "http://127.0.0.1/caf\u{e9}", "HTTP://127.0.0.1/",
        "http://127.1/", "http://[::1/",
    ])
    func everyOtherURLIsLibcurls(_ url: String) {
        #expect(PlainHTTPTarget(url) == nil)
    }
}
