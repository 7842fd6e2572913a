import ConformCore
import ConformCurl
import ConformProxy
import ConformServer
import ConformTestSupport
import ConformTraffic
import Foundation
import Synchronization
import Testing

/// Over real sockets: an upstream that never answers cannot lock clients out of the recorder. Requests beyond the
/// proxy's turns are answered 503 or 504 in bounded time, and app events are answered while the upstream stalls.
@Suite struct RecordingProxyStallTests {
    /// Holds every request until released (or 60 s), like an upstream that never answers.
    final class Stalled: HTTPHandler {
        let release = DispatchSemaphore(value: 0)
        let arrived = Mutex(0)
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            arrived.withLock { $0 += 1 }
            _ = release.wait(timeout: .now() + 60)
            release.signal()
            return .empty(200)
        }
    }

    @Test func aStalledUpstreamLocksNoClientOut() async throws {
        let stalled = Stalled()
        let upstream = try HTTPServer(handler: stalled, limits: HTTPServerLimits(threadPerConnection: true))
        try upstream.start()
        defer {
            stalled.release.signal()
            upstream.stop()
        }
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir, redaction: .disabled)
        let proxy = RecordingProxy(
            upstreams: ["*": upstream.baseURL], transport: CurlTransport(timeout: .seconds(60)), writer: writer,
            limits: ProxyLimits(maxInFlight: 4, maxQueued: 4, queueTimeout: .seconds(1), requestDeadline: .seconds(3)))
        let recorder = try HTTPServer(
            handler: proxy.handler,
            limits: HTTPServerLimits(threadPerConnection: true))
        try recorder.start()
        defer { recorder.stop() }
        let client = CurlTransport(timeout: .seconds(60), maxConcurrentExchanges: 64)
        let base = recorder.baseURL
        // Forty clients at once, more than the recorder used to have threads for.
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<40 {
                group.addTask {
                    try await client.send(HTTPRequest(method: .get, url: "\(base)/mobile/1/x?n=\(i)")).status.code
                }
            }
            // Meanwhile an app event is answered: it never waits for the upstream.
            let event = try await client.send(
                HTTPRequest(
                    method: .post, url: base + RecordingProxy.eventsPath,
                    headerFields: ["Content-Type": "application/json"],
                    body: Data(#"{"event":"logout","pushRegId":"p"}"#.utf8)))
            #expect(event.status.code == 200)
            var all: [Int] = []
            for try await status in group { all.append(status) }
            return all
        }
        #expect(statuses.count == 40)
        #expect(Set(statuses).isSubset(of: [503, 504]), "\(statuses.sorted())")
        #expect(statuses.filter { $0 == 504 }.count >= 4)
        #expect(stalled.arrived.withLock { $0 } <= 8)
        #expect(proxy.load.forwarding == 0 && proxy.load.waiting == 0)
    }
}
