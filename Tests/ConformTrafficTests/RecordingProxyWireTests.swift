import ConformCore
import ConformCurl
import ConformMobileMessaging
import ConformProxy
import ConformServer
import ConformTestSupport
import ConformTraffic
import Foundation
import Synchronization
import Testing

/// What the server refuses on the wire never reaches the recording proxy: nothing is forwarded upstream and no
/// line is written, so a recording holds only requests its own readers accept, byte for byte as sent.
@Suite struct RecordingProxyWireTests {
    /// Counts what reaches the upstream.
    final class Upstream: HTTPHandler, Sendable {
        let urls = Mutex<[String]>([])
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            urls.withLock { $0.append(request.url) }
            return .json(200, ["ok": true])
        }
    }

    /// Sends `bytes` on a fresh connection and returns the status line's code (0 when none came within 10 s).
    func status(port: UInt16, _ bytes: [UInt8]) -> Int {
        guard let client = try? RawClient(port: port) else { return 0 }
        client.send(bytes)
        let text = String(decoding: client.readAll(), as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 ") else { return 0 }
        return Int(text.dropFirst(9).prefix(3)) ?? 0
    }

    @Test func refusedHeadsAreNeitherForwardedNorRecorded() async throws {
        let upstreamHandler = Upstream()
        let upstream = try HTTPServer(handler: upstreamHandler)
        try upstream.start()
        defer { upstream.stop() }
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir, redaction: .disabled)
        let proxy = RecordingProxy(
            upstreams: ["*": upstream.baseURL], transport: CurlTransport(timeout: .seconds(60)), writer: writer)
        let server = try HTTPServer(handler: proxy.handler)
        try server.start()
        defer { server.stop() }

        let smuggled = "GET /mobile/1/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
        let hostile: [[UInt8]] = [
            Array("POST /mobile/1/a HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\n\r\nhello\(smuggled)".utf8),
            Array("GET /mobile/1/a\u{1B}]0;title\u{07} HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
            Array("G(T /mobile/1/a HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
            Array("GET /mobile/1/a HTTP/1.1\r\nHost: x\r\nX(Name): 1\r\n\r\n".utf8),
            Array("GET /mobile/1/caf".utf8) + [0xE9] + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
            Array("GET /mobile/1/a HTTP/1.1\r\nHost: x\r\nX-Name: caf".utf8) + [0xE9] + Array("\r\n\r\n".utf8),
            Array("GET /mobile/1/a\u{0}/other HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
        ]
        for bytes in hostile {
            #expect(
                status(port: server.boundPort, bytes) == 400,
                "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
        let fine = try await CurlTransport(timeout: .seconds(60)).send(
            HTTPRequest(
                method: .get, url: "\(server.baseURL)/mobile/1/fine?q=caf%C3%A9", headerFields: ["X-Name": "café"]))
        #expect(fine.status == 200)
        writer.close()

        #expect(upstreamHandler.urls.withLock { $0 } == ["/mobile/1/fine?q=caf%C3%A9"])
        let reader = try RecordingReader(path: dir)
        var recorded: [RecordedExchange] = []
        while let exchange = try reader.next() { recorded.append(exchange) }
        #expect(recorded.count == 1)
        #expect(recorded.first?.request.headerFields["X-Name"] == "café")
    }

    /// Answers with a `Set-Cookie` of `size` bytes.
    struct BigHeadUpstream: HTTPHandler {
        let size: Int
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            HTTPResponse(
                status: 200, headerFields: ["Set-Cookie": "s=" + String(repeating: "c", count: size)],
                body: Data("{}".utf8))
        }
    }

    /// An upstream answer whose head the proxy's server could not send is answered 502 with the envelope, and the
    /// recording keeps the 502 the client got, not the answer it never saw; a head that fits passes unchanged.
    @Test func anUpstreamHeadTooLargeToPassOnIs502AndRecordedAsSuch() async throws {
        let upstream = try HTTPServer(
            handler: BigHeadUpstream(size: 40_000), limits: HTTPServerLimits(maxResponseHeadBytes: 256 * 1024))
        try upstream.start()
        defer { upstream.stop() }
        let fitting = try HTTPServer(handler: BigHeadUpstream(size: 12_000))
        try fitting.start()
        defer { fitting.stop() }
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir, redaction: .disabled)
        let proxy = RecordingProxy(
            upstreams: ["mobile": upstream.baseURL, "backend": fitting.baseURL],
            transport: CurlTransport(timeout: .seconds(60)), writer: writer, profile: .mobileMessaging)
        let server = try HTTPServer(handler: proxy.handler)
        try server.start()
        defer { server.stop() }

        let client = CurlTransport(timeout: .seconds(60))
        let big = try await client.send(HTTPRequest(method: .get, url: "\(server.baseURL)/mobile/1/big"))
        #expect(big.status == 502)
        let text = String(decoding: big.body, as: UTF8.self)
        #expect(text.contains("answered with a head larger than the 16384 bytes the proxy passes on"), "\(text)")
        let fine = try await client.send(HTTPRequest(method: .get, url: "\(server.baseURL)/people/2/fine"))
        #expect(fine.status == 200)
        #expect(fine.headerFields["Set-Cookie"]?.utf8.count == 12_002)
        writer.close()

        let reader = try RecordingReader(path: dir)
        var recorded: [RecordedExchange] = []
        while let exchange = try reader.next() { recorded.append(exchange) }
        #expect(recorded.map(\.response.status.code) == [502, 200])
        #expect(recorded.first?.response.headerFields["Set-Cookie"] == nil)
    }
}
