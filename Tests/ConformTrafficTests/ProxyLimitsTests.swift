import ConformCore
import ConformProxy
import ConformTestSupport
import ConformTraffic
import Foundation
import Synchronization
import Testing

/// An upstream that never answers cannot exhaust the recording proxy: a bounded number of requests go upstream at
/// once, others wait a bounded time in a bounded queue, and each exchange ends by its deadline.
@Suite struct ProxyLimitsTests {
    /// Never answers `/hang` (until cancelled or released); answers anything else at once.
    final class Hanging: Transport {
        let started = Counter()
        let sent = Mutex<[String]>([])
        private let released = Mutex(false)
        var paths: [String] { sent.withLock { $0 } }
        /// Lets every `/hang` exchange answer.
        func release() { released.withLock { $0 = true } }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            started.add()
            sent.withLock { $0.append(request.target) }
            if request.path == "/hang" {
                while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            }
            return HTTPResponse(status: 200)
        }
    }

    final class Counter: Sendable {
        private let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    func proxy(_ transport: Hanging, _ limits: ProxyLimits, dir: String) throws -> RecordingProxy {
        RecordingProxy(
            upstreams: ["*": "http://upstream.invalid"], transport: transport,
            writer: try RecordingWriter(directory: dir, redaction: .disabled), limits: limits)
    }

    @Test func aHangingUpstreamGets504ByTheDeadlineAndTheQueueAnswers503() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let transport = Hanging()
        // The test must see both queued requests waiting before their queue timeout: 2 s leaves a loaded machine
        // room to look (300 ms did not), and the deadline stays well after it.
        let limits = ProxyLimits(
            maxInFlight: 2, maxQueued: 2, queueTimeout: .seconds(2), requestDeadline: .seconds(8))
        let proxy = try proxy(transport, limits, dir: dir)
        let hang = HTTPRequest(method: .get, url: "/hang")
        async let first = proxy.forward(hang)
        async let second = proxy.forward(hang)
        #expect(await Eventually.holds(within: .seconds(20)) { transport.started.count == 2 })
        async let third = proxy.forward(hang)
        async let fourth = proxy.forward(hang)
        #expect(await Eventually.holds(within: .seconds(20)) { proxy.load.waiting == 2 })
        // The queue is full: answered at once, not queued.
        let fifth = await proxy.forward(hang)
        #expect(fifth.status.code == 503)
        #expect(fifth.headerFields["Retry-After"] == "1")
        // The waiting ones give up after the queue timeout, the forwarded ones at their deadline.
        #expect(await third.status.code == 503)
        #expect(await fourth.status.code == 503)
        #expect(await first.status.code == 504)
        #expect(await second.status.code == 504)
        #expect(transport.started.count == 2)
        #expect(proxy.load.forwarding == 0 && proxy.load.waiting == 0)
        // The timed-out exchanges are recorded as the client saw them.
        let reader = try RecordingReader(path: dir)
        var recorded: [RecordedExchange] = []
        while let exchange = try reader.next() { recorded.append(exchange) }
        #expect(recorded.map(\.response.status.code) == [504, 504])
    }

    @Test func aFreedTurnGoesToTheLongestWaitingRequest() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let transport = Hanging()
        let limits = ProxyLimits(
            maxInFlight: 1, maxQueued: 4, queueTimeout: .seconds(600), requestDeadline: .seconds(600))
        let proxy = try proxy(transport, limits, dir: dir)
        // Released by the test once three wait, so the order is the queue's, not a race with a deadline.
        async let hung = proxy.forward(HTTPRequest(method: .get, url: "/hang"))
        #expect(await Eventually.holds(within: .seconds(20)) { transport.started.count == 1 })
        var waiting: [Task<Int, Never>] = []
        for i in 1...3 {
            waiting.append(Task { await proxy.forward(HTTPRequest(method: .get, url: "/fine?n=\(i)")).status.code })
            #expect(await Eventually.holds(within: .seconds(20)) { proxy.load.waiting == i })
        }
        transport.release()
        #expect(await hung.status.code == 200)
        for task in waiting { #expect(await task.value == 200) }
        #expect(transport.paths == ["/hang", "/fine?n=1", "/fine?n=2", "/fine?n=3"])
    }

    @Test func appEventsAreAnsweredWhileTheUpstreamHangs() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let limits = ProxyLimits(maxInFlight: 1, maxQueued: 0, queueTimeout: .seconds(1), requestDeadline: .seconds(2))
        let upstream = Hanging()
        let proxy = try proxy(upstream, limits, dir: dir)
        async let hung = proxy.forward(HTTPRequest(method: .get, url: "/hang"))
        // Until the upstream holds the request: the one slot is taken when the event comes.
        #expect(await Eventually.holds(within: .seconds(20)) { upstream.started.count == 1 })
        let event = await proxy.forward(
            HTTPRequest(
                method: .post, url: RecordingProxy.eventsPath, headerFields: ["Content-Type": "application/json"],
                body: Data(#"{"event":"logout","pushRegId":"p1"}"#.utf8)))
        #expect(event.status.code == 200)
        #expect(await hung.status.code == 504)
    }
}
