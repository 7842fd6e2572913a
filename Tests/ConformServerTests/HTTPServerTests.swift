import ConformCore
import ConformCurl
import ConformServer
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@Suite("HTTPServer")
struct HTTPServerTests {
    func started(_ handler: any HTTPHandler = EchoHandler(), limits: HTTPServerLimits = .default) throws -> HTTPServer {
        let server = try HTTPServer(handler: handler, limits: limits)
        try server.start()
        return server
    }

    @Test func getIsAnsweredWithRawURLAndHeaders() async throws {
        let server = try started()
        defer { server.stop() }
        #expect(server.boundPort != 0)
        let transport = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        let response = try await transport.send(
            HTTPRequest(method: .get, url: "/v1/things?b=2&a=%20x+y&flag", headerFields: ["X-Trace": "t1"]))
        #expect(response.status == 200)
        let echoed = try EchoedRequest(response)
        #expect(echoed.method == "GET")
        #expect(echoed.url == "/v1/things?b=2&a=%20x+y&flag")
        #expect(echoed.headers.contains { $0 == ("X-Trace", "t1") })
        #expect(response.headerFields.values(for: "x-reply") == ["one", "two"])
        #expect(response.headerFields["Content-Type"] == "application/json")
    }

    @Test func postEchoesAFiveMegabyteBody() async throws {
        let server = try started()
        defer { server.stop() }
        let body = Data((0..<(5 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let transport = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        let response = try await transport.send(HTTPRequest(method: .post, url: "/echo", body: body))
        #expect(response.status == 200)
        #expect(response.body.count == body.count)
        #expect(response.body == body)
    }

    @Test func sequentialRequestsShareOneConnection() async throws {
        // A keep-alive connection waiting for its next request head is closed after the header timeout, and an idle
        // one after libmicrohttpd's connection timeout: here the first is an hour and the second off, so a test
        // starved of its thread for a while on a loaded machine still sees one connection (the whole-request
        // deadline counts from the same point, so it is raised too). What is judged is curl's own account of reuse.
        var limits = HTTPServerLimits.default
        limits.headerTimeoutSeconds = 3600
        limits.requestTimeoutSeconds = 3600
        limits.connectionTimeoutSeconds = 0
        let server = try started(limits: limits)
        defer { server.stop() }
        let transport = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        var reused: [Bool] = []
        for index in 0..<20 {
            let method: HTTPMethod = index % 2 == 0 ? .get : .post
            let response = try await transport.send(
                HTTPRequest(method: method, url: "/n/\(index)", body: Data("x".utf8)))
            #expect(response.status == 200)
            reused.append(response.timing?.reusedConnection ?? false)
        }
        #expect(reused.first == false)
        #expect(reused.dropFirst().allSatisfy { $0 })
    }

    @Test func rawHeaderNamesOrderAndDuplicatesArePreserved() throws {
        let server = try started()
        defer { server.stop() }
        let client = try RawClient(port: server.boundPort)
        client.send(
            "GET /h?q=%2F%zz HTTP/1.1\r\nHost: example.test\r\nX-B: 1\r\nx-a: 2\r\nX-B: 3\r\nCONTENT-type: text/plain\r\nConnection: close\r\n\r\n"
        )
        let reply = String(decoding: client.readAll(), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 200"))
        let body = String(reply[reply.range(of: "\r\n\r\n")!.upperBound...])
        let echoed = try EchoedRequest(HTTPResponse(status: 200, body: Data(body.utf8)))
        #expect(echoed.url == "/h?q=%2F%zz")
        let names = echoed.headers.map(\.0)
        #expect(names == ["Host", "X-B", "x-a", "X-B", "CONTENT-type", "Connection"])
        #expect(echoed.headers.filter { $0.0 == "X-B" }.map(\.1) == ["1", "3"])
    }

    @Test func malformedRequestLineGetsBadRequestOrClose() async throws {
        let server = try started()
        defer { server.stop() }
        for garbage in [
            "GARBAGE\r\n\r\n", "GET\r\n\r\n", "\u{1}\u{2}\u{3} / HTTP/9.9\r\n\r\n",
            "GET / HTTP/1.1\r\nNoColonHere\r\n\r\n",
        ] {
            let client = try RawClient(port: server.boundPort)
            client.send(garbage)
            let reply = String(decoding: client.readAll(), as: UTF8.self)
            #expect(
                reply.isEmpty || reply.hasPrefix("HTTP/1.1 4") || reply.hasPrefix("HTTP/1.1 505"),
                "\(garbage.debugDescription) got \(reply.prefix(40))")
        }
        let client = try RawClient(port: server.boundPort)
        client.send([0xFF, 0xFE, 0x00, 0x0D, 0x0A, 0x0D, 0x0A])
        _ = client.readAll()
        let response = try await RebasedTransport(base: server.baseURL, inner: CurlTransport()).send(
            HTTPRequest(method: .get, url: "/still"))
        #expect(response.status == 200)
    }

    @Test func hugeHeadersAreRefused() async throws {
        let server = try started(limits: HTTPServerLimits(maxHeaderBytes: 16 * 1024))
        defer { server.stop() }
        let client = try RawClient(port: server.boundPort)
        client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n")
        let reply = String(decoding: client.readAll(), as: UTF8.self)
        #expect(
            reply.isEmpty || reply.hasPrefix("HTTP/1.1 431") || reply.hasPrefix("HTTP/1.1 4"), "\(reply.prefix(60))")
        let response = try await RebasedTransport(base: server.baseURL, inner: CurlTransport()).send(
            HTTPRequest(method: .get, url: "/after"))
        #expect(response.status == 200)
    }

    @Test func bodyOverTheLimitGets413() async throws {
        let server = try started(limits: HTTPServerLimits(maxBodyBytes: 1000))
        defer { server.stop() }
        let transport = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        let refused = try await transport.send(HTTPRequest(method: .post, url: "/echo", body: Data(count: 5000)))
        #expect(refused.status == 413)
        let fits = try await transport.send(HTTPRequest(method: .post, url: "/echo", body: Data(count: 1000)))
        #expect(fits.status == 200)
        #expect(fits.body.count == 1000)

        // Chunked bodies have no declared length; the limit applies as they arrive, and the answer is the same.
        let client = try RawClient(port: server.boundPort)
        var request = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<4 { request += "1F4\r\n" + String(repeating: "z", count: 500) + "\r\n" }
        client.send(request + "0\r\n\r\n")
        let reply = String(decoding: client.readAll(), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 413"), "\(reply.prefix(60))")
    }

    @Test func aStalledClientDoesNotBlockOthers() async throws {
        let server = try started(limits: HTTPServerLimits(connectionTimeoutSeconds: 2, threads: 2))
        defer { server.stop() }
        let stalled = try (0..<4).map { _ in try RawClient(port: server.boundPort, receiveTimeoutSeconds: 20) }
        for client in stalled { client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhalf") }
        let transport = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        for index in 0..<10 {
            let response = try await transport.send(HTTPRequest(method: .get, url: "/other/\(index)"))
            #expect(response.status == 200)
        }
        // The server eventually gives up on the stalled clients and closes them.
        for client in stalled {
            let reply = client.readAll()
            #expect(!String(decoding: reply, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test func thirtyTwoConcurrentClients() async throws {
        let server = try started()
        defer { server.stop() }
        let transport = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        let failures = await withTaskGroup(of: Int.self) { group in
            for task in 0..<32 {
                group.addTask {
                    var failures = 0
                    for index in 0..<10 {
                        let body = Data("task \(task) request \(index)".utf8)
                        let response = try? await transport.send(HTTPRequest(method: .post, url: "/echo", body: body))
                        if response?.status != 200 || response?.body != body { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }

    @Test func asyncHandlerAdapterAnswersFromATask() async throws {
        let handler = AsyncHandlerAdapter { request in
            try? await Task.sleep(for: .milliseconds(5))
            return .json(201, ["path": .string(request.path)])
        }
        let server = try started(handler)
        defer { server.stop() }
        let response = try await RebasedTransport(base: server.baseURL, inner: CurlTransport()).send(
            HTTPRequest(method: .get, url: "/async"))
        #expect(response.status == 201)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"path":"/async"}"#)
    }

    /// Holds every `/slow` request until released; answers anything else at once.
    final class Gate: Sendable {
        private let open = Mutex(false)
        let waiting = Mutex(0)
        /// What happened, in order: `answered` when the slow handler returns, and what a test adds.
        let events = Mutex<[String]>([])
        func release() { open.withLock { $0 = true } }
        var handler: AsyncHandlerAdapter {
            AsyncHandlerAdapter { [self] request in
                if request.path == "/slow" {
                    waiting.withLock { $0 += 1 }
                    while !open.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
                    events.withLock { $0.append("answered") }
                }
                return .json(200, ["path": .string(request.path)])
            }
        }
    }

    @Test func aDeferredAnswerHoldsNoServerThreadAndKeepsTheConnectionAlive() async throws {
        let gate = Gate()
        // One event-loop thread: a handler that blocked it would keep the second client waiting too. An idle
        // keep-alive connection closes after the head timeout: on a loaded machine the pause before `/again` may
        // outlast the default 10 s, so the timeouts are long enough to judge reuse, not the machine.
        let server = try started(
            gate.handler,
            limits: HTTPServerLimits(
                connectionTimeoutSeconds: 600, headerTimeoutSeconds: 600, requestTimeoutSeconds: 600, threads: 1))
        defer { server.stop() }
        let slowClient = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        async let slow = slowClient.send(HTTPRequest(method: .get, url: "/slow"))
        // Until the slow request is in the handler (a bound on a loaded machine, not a timing assertion).
        for _ in 0..<12_000 where gate.waiting.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try #require(gate.waiting.withLock { $0 } == 1, "the slow request never reached the handler")
        let fast = try await RebasedTransport(base: server.baseURL, inner: CurlTransport()).send(
            HTTPRequest(method: .get, url: "/fast"))
        #expect(fast.status == 200, "answered while the slow request still waits")
        #expect(gate.waiting.withLock { $0 } == 1)
        gate.release()
        let answered = try await slow
        #expect(String(decoding: answered.body, as: UTF8.self) == #"{"path":"/slow"}"#)
        // The same client again: its connection survived the suspension.
        let again = try await slowClient.send(HTTPRequest(method: .get, url: "/again"))
        #expect(again.status == 200)
        #expect(again.timing?.reusedConnection == true)
    }

    @Test func stopWaitsForADeferredAnswer() async throws {
        let gate = Gate()
        let server = try started(gate.handler)
        let client = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        async let slow = client.send(HTTPRequest(method: .get, url: "/slow"))
        // Until the slow request is in the handler (a bound on a loaded machine, not a timing assertion).
        for _ in 0..<12_000 where gate.waiting.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try #require(gate.waiting.withLock { $0 } == 1, "the slow request never reached the handler")
        let stopping = Thread {
            server.stop()
            gate.events.withLock { $0.append("stopped") }
        }
        stopping.start()
        // The stop has begun once the server no longer names a port (its first step); it must then wait for the
        // suspended connection's answer, which the gate still holds.
        for _ in 0..<12_000 where server.boundPort != 0 { try await Task.sleep(for: .milliseconds(5)) }
        try #require(server.boundPort == 0, "the stop never began")
        #expect(gate.events.withLock { $0 }.isEmpty, "stop returned while a connection was suspended")
        gate.release()
        #expect(try await slow.status == 200)
        for _ in 0..<12_000 where gate.events.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(5)) }
        // The handler answered before the stop could return.
        #expect(gate.events.withLock { $0 } == ["answered", "stopped"])
    }

    @Test func startErrorsNameTheProblem() throws {
        #expect(throws: HTTPServerError.self) { try HTTPServer(handler: EchoHandler(), host: "not a host") }
        let first = try started()
        defer { first.stop() }
        let second = try HTTPServer(handler: EchoHandler(), port: first.boundPort)
        let error = #expect(throws: HTTPServerError.self) { try second.start() }
        #expect(error?.kind == .cannotListen)
        #expect(error?.message.contains("\(first.boundPort)") == true)
    }

    @Test func stopIsIdempotentAndRestartWorks() async throws {
        let server = try started()
        server.stop()
        server.stop()
        #expect(server.boundPort == 0)
        try server.start()
        defer { server.stop() }
        let response = try await RebasedTransport(base: server.baseURL, inner: CurlTransport()).send(
            HTTPRequest(method: .get, url: "/again"))
        #expect(response.status == 200)
    }

    @Test func logHandlerReceivesServerMessages() throws {
        let lines = LogLines()
        let server = try HTTPServer(handler: EchoHandler(), limits: HTTPServerLimits(maxHeaderBytes: 4096)) {
            lines.append($0)
        }
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.boundPort)
        client.send("GET / HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n")
        _ = client.readAll()
        server.stop()
        #expect(!lines.all.isEmpty)
    }
}

/// Collects log lines from server threads.
final class LogLines: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var all: [String] { storage.withLock { $0 } }
}
