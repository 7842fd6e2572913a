import ConformCore
import ConformCurl
import ConformMobileMessaging
import ConformProxy
import ConformReplay
import ConformServer
import ConformTestSupport
import ConformTraffic
import ConformTransports
import Foundation
import Synchronization
import Testing

/// `record`, `replay` and `diff` send only to the configured upstream or target: a request target or recorded URL
/// that would name another host is refused, and that host gets nothing.
@Suite struct OriginConfinementTests {
    /// Counts what reaches it and answers 200 with the target it saw.
    final class Counting: HTTPHandler {
        let seen = Mutex<[String]>([])
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            seen.withLock { $0.append(request.url) }
            return HTTPResponse(status: 200, headerFields: ["Content-Type": "text/plain"], body: Data(request.url.utf8))
        }
    }

    @Test(.enabled(if: Tool.has("curl"), "needs curl's --request-target"))
    func theRecorderForwardsOriginFormTargetsOnlyToItsUpstream() async throws {
        let upstreamHandler = Counting()
        let otherHandler = Counting()
        let upstream = try HTTPServer(handler: upstreamHandler)
        let other = try HTTPServer(handler: otherHandler)
        try upstream.start()
        defer { upstream.stop() }
        try other.start()
        defer { other.stop() }
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir, redaction: .disabled)
        let proxy = RecordingProxy(
            upstreams: ["*": upstream.baseURL], transport: CurlTransport(timeout: .seconds(20)), writer: writer)
        let recorder = try HTTPServer(
            handler: proxy.handler,
            limits: HTTPServerLimits(threadPerConnection: true))
        try recorder.start()
        defer { recorder.stop() }
        let otherAuthority = "127.0.0.1:\(other.boundPort)"
        let hostile = [
            "@\(otherAuthority)/steal", "\(otherAuthority)/steal", "http://\(otherAuthority)/steal",
            "https://\(otherAuthority)/steal",
        ]
        for target in hostile {
            let outcome = try await ChildProcess.output(
                "/usr/bin/env",
                [
                    "curl", "-s", "--max-time", "60", "-o", "-", "-w", "\n%{http_code}", "--request-target", target,
                    "-H", "Authorization: App secret", recorder.baseURL + "/",
                ])
            #expect(outcome.output.hasSuffix("\n400"), "\(target): \(outcome.output)")
            #expect(outcome.output.contains("BAD_REQUEST_TARGET"), "\(target)")
        }
        // An empty first segment is a path on the upstream, never a host.
        let doubled = try await ChildProcess.output(
            "/usr/bin/env",
            [
                "curl", "-s", "--max-time", "60", "-o", "-", "-w", "\n%{http_code}", "--request-target",
                "//\(otherAuthority)/x", recorder.baseURL + "/",
            ])
        #expect(doubled.output.hasSuffix("\n200"), "\(doubled.output)")
        writer.close()
        #expect(otherHandler.seen.withLock { $0 } == [])
        #expect(upstreamHandler.seen.withLock { $0 } == ["//\(otherAuthority)/x"])
        let reader = try RecordingReader(path: dir)
        var recorded: [RecordedExchange] = []
        while let exchange = try reader.next() { recorded.append(exchange) }
        #expect(recorded.map(\.request.target) == ["//\(otherAuthority)/x"])
    }

    @Test func replayNeverSendsARecordedURLThatWouldNameAnotherHost() async throws {
        let otherHandler = Counting()
        let targetHandler = Counting()
        let other = try HTTPServer(handler: otherHandler)
        let target = try HTTPServer(handler: targetHandler)
        try other.start()
        defer { other.stop() }
        try target.start()
        defer { target.stop() }
        let hostile = RecordedExchange(
            seq: 1, flow: "f", upstream: "mobile", startedAt: Date(), durationMs: 1,
            request: HTTPRequest(method: .get, url: "@127.0.0.1:\(other.boundPort)/steal"),
            response: HTTPResponse(status: 200))
        var fine = hostile
        fine.seq = 2
        fine.request.url = "http://mobile.conform.invalid/fine"
        let replayer = Replayer(
            transport: CurlTransport(timeout: .seconds(20)),
            options: ReplayOptions(profile: .mobileMessaging, origins: ["*": target.baseURL], concurrentFlows: false))
        let summary = try await replayer.replay([hostile, fine])
        #expect(summary.total == 2)
        #expect(summary.unjudged == 1)
        let refused = try #require(summary.mismatches.first { $0.seq == 1 })
        #expect(refused.cannotJudge?.contains("would reach another host") == true)
        #expect(otherHandler.seen.withLock { $0 } == [])
        #expect(targetHandler.seen.withLock { $0 } == ["/fine"])
    }

    @Test func rebasingDecoratorsRefuseBeforeTheInnerTransport() async throws {
        let handler = Counting()
        let rebased = RebasedTransport(base: "http://target.invalid", inner: InProcessTransport(handler))
        await #expect(throws: RequestTargetError.self) {
            _ = try await rebased.send(HTTPRequest(method: .get, url: "evil.example/x"))
        }
        #expect(handler.seen.withLock { $0 } == [])
    }
}
