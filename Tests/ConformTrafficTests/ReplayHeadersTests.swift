import ConformCore
import ConformCurl
import ConformReplay
import ConformServer
import ConformTestSupport
import ConformTraffic
import Foundation
import Synchronization
import Testing

/// What a replay sends to another origin: the recorded message's own headers, never those of the connection it
/// was recorded on; `Host` is the target's (or `--host-header`), `Content-Length` the transport's own.
@Suite struct ReplayHeadersTests {
    /// Remembers the header fields of every request, as they arrived.
    final class HeaderEcho: HTTPHandler {
        let seen = Mutex<[HTTPFields]>([])
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            seen.withLock { $0.append(request.headerFields) }
            return .empty(204)
        }
    }

    func recorded() -> RecordedExchange {
        RecordedExchange(
            seq: 1, flow: "f", upstream: "mobile", startedAt: Date(), durationMs: 1,
            request: HTTPRequest(
                method: .post, url: "http://127.0.0.1:8090/mobile/1/appinstance",
                headerFields: [
                    "Host": "127.0.0.1:8090", "Connection": "keep-alive, X-Hop", "Keep-Alive": "timeout=5",
                    "TE": "trailers", "Upgrade": "h2c", "Proxy-Authorization": "Basic c2VjcmV0",
                    "Transfer-Encoding": "chunked", "Content-Length": "999", "X-Hop": "one connection only",
                    "Authorization": "App code", "X-Kept": "yes",
                ], body: Data("{}".utf8)),
            response: .empty(204))
    }

    @Test(arguments: [nil, "api.staging.example"])
    func onlyTheMessagesOwnHeadersAreReplayed(hostHeader: String?) async throws {
        let echo = HeaderEcho()
        let server = try HTTPServer(handler: echo)
        try server.start()
        defer { server.stop() }
        var options = ReplayOptions(origins: ["*": server.baseURL])
        options.hostHeader = hostHeader
        let summary = try await Replayer(transport: CurlTransport(timeout: .seconds(30)), options: options)
            .replay([recorded()])
        #expect(summary.total == 1)
        let fields = try #require(echo.seen.withLock { $0 }.first)
        #expect(fields["Host"] == hostHeader ?? "127.0.0.1:\(server.boundPort)")
        #expect(fields.values(for: "Host").count == 1)
        #expect(fields["Content-Length"] == "2")
        for name in ["Connection", "Keep-Alive", "TE", "Upgrade", "Proxy-Authorization", "Transfer-Encoding", "X-Hop"] {
            #expect(fields[name] == nil, "\(name) was replayed")
        }
        #expect(fields["Authorization"] == "App code")
        #expect(fields["X-Kept"] == "yes")
    }
}
