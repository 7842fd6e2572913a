import ConformCore
import ConformCurl
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@Suite("CurlTransport")
struct CurlTransportTests {
    let transport = CurlTransport(timeout: .seconds(10))

    func failure(_ request: HTTPRequest, on transport: CurlTransport? = nil) async -> TransportError? {
        do {
            _ = try await (transport ?? self.transport).send(request)
            return nil
        } catch let error as TransportError {
            return error
        } catch {
            return TransportError(.other, "unexpected \(error)")
        }
    }

    @Test func closedPortIsConnectionRefused() async throws {
        let closed = try RefusingPort()
        let url = closed.baseURL + "/v1/x"
        let error = await failure(HTTPRequest(method: .get, url: url))
        withExtendedLifetime(closed) {}
        #expect(error?.kind == .connectionRefused)
        #expect(error?.message.contains(url) == true)
    }

    @Test func serverThatNeverAnswersTimesOut() async throws {
        let server = try RawServer { connection in
            connection.readRequest()
            connection.waitForClose()
        }
        defer { server.stop() }
        let error = await failure(HTTPRequest(method: .get, url: server.baseURL + "/hang", timeout: .milliseconds(300)))
        #expect(error?.kind == .timeout)
        #expect(error?.message.contains("/hang") == true)
    }

    @Test func serverThatClosesAfterReadingIsAReset() async throws {
        let server = try RawServer { connection in connection.readRequest() }
        defer { server.stop() }
        let error = await failure(HTTPRequest(method: .post, url: server.baseURL + "/reset", body: Data("{}".utf8)))
        #expect(error?.kind == .connectionReset)
    }

    /// A connection reset after the status line came is the implementation cutting its answer short (the request
    /// may have been carried out): an invalid response, which `--retry` never sends again, not a reset before any
    /// answer.
    @Test func aResetInTheMiddleOfTheAnswerIsNoResetBeforeAnyAnswer() async throws {
        let server = try RawServer { connection in
            connection.readRequest()
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":")
            // An abortive close: the peer gets a reset, not an orderly end of stream.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            shutdown(connection.fd, Int32(SHUT_RDWR))
        }
        defer { server.stop() }
        let error = try #require(await failure(HTTPRequest(method: .post, url: server.baseURL + "/half")))
        #expect(error.kind == .invalidResponse, "\(error)")
        #expect(RetryPolicy(retries: 3).cause(of: error) == nil)
    }

    @Test func nonHTTPBytesAreAnInvalidResponse() async throws {
        let server = try RawServer { connection in
            connection.readRequest()
            connection.write([0x00, 0xFF, 0x13] + Array("SSH-2.0-nope\r\n\r\ngarbage".utf8))
        }
        defer { server.stop() }
        let error = await failure(HTTPRequest(method: .get, url: server.baseURL + "/garbage"))
        #expect(error?.kind == .invalidResponse)
    }

    @Test func invalidJSONWithStatus200IsReturnedAsIs() async throws {
        let server = try RawServer { connection in
            connection.readRequest()
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{\"a\": tru")
        }
        defer { server.stop() }
        let response = try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/json"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "{\"a\": tru")
    }

    @Test func truncatedBodyIsAnInvalidResponse() async throws {
        let server = try RawServer { connection in
            connection.readRequest()
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort")
        }
        defer { server.stop() }
        let error = await failure(HTTPRequest(method: .get, url: server.baseURL + "/short"))
        #expect(error?.kind == .invalidResponse)
    }

    @Test func slowDripResponseArrivesWhole() async throws {
        let reply = "HTTP/1.1 200 OK\r\nX-Slow: yes\r\nContent-Length: 5\r\n\r\nhello"
        let server = try RawServer { connection in
            connection.readRequest()
            for byte in reply.utf8 {
                connection.write([byte])
                usleep(2000)
            }
        }
        defer { server.stop() }
        let response = try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/drip"))
        #expect(response.status == 200)
        #expect(response.headerFields["X-Slow"] == "yes")
        #expect(response.body == Data("hello".utf8))
    }

    @Test func slowDripPastTheTimeoutTimesOut() async throws {
        let server = try RawServer { connection in
            connection.readRequest()
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
            for _ in 0..<100 {
                connection.write("x")
                usleep(50_000)
            }
        }
        defer { server.stop() }
        let error = await failure(HTTPRequest(method: .get, url: server.baseURL + "/drip", timeout: .milliseconds(400)))
        #expect(error?.kind == .timeout)
    }

    @Test func rawResponseHeadersKeepOrderCaseAndDuplicates() async throws {
        let server = try RawServer { connection in
            connection.readRequest()
            connection.write(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nset-cookie: a=1\r\nX-Z: z\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n"
            )
        }
        defer { server.stop() }
        let response = try await transport.send(
            HTTPRequest(method: .post, url: server.baseURL + "/h", body: Data("x".utf8)))
        #expect(response.status == 201)
        #expect(response.headerFields.map(\.name) == ["set-cookie", "X-Z", "Set-Cookie", "Content-Length"])
        #expect(response.headerFields.values(for: "Set-Cookie") == ["a=1", "b=2"])
        #expect(response.timing != nil)
    }

    @Test func redirectsAreNotFollowed() async throws {
        let server = try RawServer { connection in
            connection.readRequest()
            connection.write("HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n")
        }
        defer { server.stop() }
        let response = try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/r"))
        #expect(response.status == 302)
        #expect(response.headerFields["Location"] == "/elsewhere")
    }

    @Test func methodHeadersAndBodyAreSentExactly() async throws {
        let server = try RawServer { connection in
            connection.readRequest()
            connection.write("HTTP/1.1 204 No Content\r\n\r\n")
        }
        defer { server.stop() }
        let body = Data(#"{"op":"x"}"#.utf8)
        _ = try await transport.send(
            HTTPRequest(
                method: "PATCH", url: server.baseURL + "/p/%7Bid%7D/../q?x=1", headerFields: ["X-A": "1", "x-a": "2"],
                body: body))
        _ = try await transport.send(
            HTTPRequest(method: .get, url: server.baseURL + "/with-body", body: Data("q".utf8)))
        _ = try await transport.send(HTTPRequest(method: .delete, url: server.baseURL + "/d"))
        // A connection's bytes are kept when its handler closes it, which may be just after the client has the
        // answer: wait for the third.
        for _ in 0..<500 where server.requests.count < 3 { try await Task.sleep(for: .milliseconds(10)) }
        let sent = server.requests.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n----\n")
        #expect(sent.contains("PATCH /p/%7Bid%7D/../q?x=1 HTTP/1.1\r\n"))
        #expect(sent.contains("X-A: 1\r\nx-a: 2\r\n"))
        #expect(sent.contains("\r\n\r\n{\"op\":\"x\"}"))
        #expect(sent.contains("GET /with-body HTTP/1.1\r\n"))
        #expect(sent.contains("Content-Length: 1\r\n\r\nq"))
        #expect(sent.contains("DELETE /d HTTP/1.1\r\n"))
        for forbidden in ["Expect:", "Accept:", "Accept-Encoding:", "Content-Type:", "User-Agent:"] {
            #expect(!sent.contains(forbidden), "\(forbidden) was added")
        }
    }

    @Test func unresolvableHostIsUnreachable() async {
        let error = await failure(
            HTTPRequest(method: .get, url: "http://conform-no-such-host.invalid/x", timeout: .seconds(10)))
        #expect(error?.kind == .unreachable || error?.kind == .timeout)
        #expect(error?.message.contains("conform-no-such-host.invalid") == true)
    }

    @Test func cancellationStopsAWaitingExchange() async throws {
        let arrived = Atomic(false)
        let server = try RawServer { connection in
            connection.readRequest()
            arrived.store(true, ordering: .releasing)
            connection.waitForClose()
        }
        defer { server.stop() }
        let transport = self.transport
        let task = Task { try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/hang")) }
        // Until the server holds the request (bounded), so the cancellation ends an exchange that waits for its answer.
        for _ in 0..<6000 where !arrived.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(10)) }
        let reached = arrived.load(ordering: .acquiring)
        try #require(reached, "the request never reached the server")
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
