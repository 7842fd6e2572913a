import ConformCore
import ConformCurl
import ConformMobileMessaging
import ConformProxy
import ConformReference
import ConformReplay
import ConformServer
import ConformTestSupport
import ConformTraffic
import Foundation
import Synchronization
import Testing

/// The recording proxy between real sockets: forwarding, exact counts under concurrency, byte-exact bodies.
@Suite struct RecordingProxyTests {
    /// Echoes the request body and a per-request header back.
    struct Echo: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            HTTPResponse(
                status: 201,
                headerFields: [
                    "Content-Type": "application/octet-stream", "X-Echo": request.headerFields["X-Id"] ?? "",
                ], body: request.body)
        }
    }

    @Test func recordsEveryExchangeOf32ConcurrentConnectionsByteExact() async throws {
        let upstream = try HTTPServer(handler: Echo())
        try upstream.start()
        defer { upstream.stop() }
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir, redaction: .disabled)
        let proxy = RecordingProxy(
            upstreams: ["*": upstream.baseURL], transport: CurlTransport(timeout: .seconds(60)), writer: writer,
            profile: .mobileMessaging)
        var limits = HTTPServerLimits.default
        limits.threads = 32
        let server = try HTTPServer(handler: proxy.handler, limits: limits)
        try server.start()
        defer { server.stop() }
        // Generous bounds: they catch a hang, not a slow machine.
        let client = CurlTransport(timeout: .seconds(60))
        let base = server.baseURL
        let perConnection = 8
        let sent = try await withThrowingTaskGroup(of: [String: Data].self) { group in
            for worker in 0..<32 {
                group.addTask {
                    var bodies: [String: Data] = [:]
                    for i in 0..<perConnection {
                        let id = "\(worker)-\(i)"
                        // Binary bytes, including invalid UTF-8, of a size that differs per request.
                        let body = Data(
                            (0..<(100 + worker * 37 + i)).map { UInt8(truncatingIfNeeded: $0 * 7 + worker) })
                        let response = try await client.send(
                            HTTPRequest(
                                method: .post, url: "\(base)/mobile/1/echo?id=\(id)", headerFields: ["X-Id": id],
                                body: body))
                        #expect(response.status == 201)
                        #expect(response.body == body)
                        #expect(response.headerFields["X-Echo"] == id)
                        bodies[id] = body
                    }
                    return bodies
                }
            }
            var all: [String: Data] = [:]
            for try await part in group { all.merge(part) { a, _ in a } }
            return all
        }
        writer.close()
        let reader = try RecordingReader(path: dir)
        var recorded: [RecordedExchange] = []
        while let e = try reader.next() { recorded.append(e) }
        #expect(recorded.count == 32 * perConnection)
        #expect(Set(recorded.map(\.seq)) == Set(1...(32 * perConnection)))
        for exchange in recorded {
            let id = try #require(exchange.request.queryValue("id"))
            #expect(exchange.request.body == sent[id], "request body of \(id)")
            #expect(exchange.response.body == sent[id], "response body of \(id)")
            #expect(exchange.response.headerFields["X-Echo"] == id)
            #expect(exchange.upstream == "mobile")
        }
    }

    /// Answers 200 at once and says it sends on ``executor``'s thread.
    struct ThreadedTransport: Transport {
        let executor: TaggedExecutor
        var enforcesTimeout: Bool { true }
        var preferredTaskExecutor: (any TaskExecutor)? { executor }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { .empty(200) }
    }

    /// Where the recording of each request sent through a proxy on a ``ThreadedTransport`` ran: the transport's
    /// thread ("transport") or another (`nil`); app events and exchanges alike.
    func recordedOn(_ requests: [HTTPRequest]) async throws -> [String?] {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recordedOn = Mutex<[String?]>([])
        let note: @Sendable () -> Void = { recordedOn.withLock { $0.append(TaggedExecutor.current) } }
        let proxy = RecordingProxy(
            upstreams: ["*": "http://upstream.test"],
            transport: ThreadedTransport(executor: TaggedExecutor(name: "transport")),
            writer: try RecordingWriter(directory: dir, redaction: .disabled), onExchange: { _ in note() },
            onEvent: { _ in note() })
        let server = try HTTPServer(handler: proxy.handler)
        try server.start()
        defer { server.stop() }
        let client = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        for request in requests { #expect(try await client.send(request).status == 200) }
        return recordedOn.withLock { $0 }
    }

    /// The proxy's handler starts each exchange on its transport's thread, where a small exchange is also recorded:
    /// the request goes from the server's thread to the transport's and back, with no thread of the handler's own
    /// between.
    @Test func theProxysHandlerRecordsASmallExchangeOnItsTransportsThread() async throws {
        let small = HTTPRequest(method: .post, url: "/mobile/1/where", body: Data(repeating: 0x61, count: 8 * 1024))
        #expect(try await recordedOn([small]) == ["transport"])
    }

    /// A large exchange is recorded off the transport's thread, so its redaction never holds the I/O of the others;
    /// the next exchange is back on the transport's thread.
    @Test func aLargeExchangeIsRecordedOffItsTransportsThread() async throws {
        let large = HTTPRequest(method: .post, url: "/mobile/1/big", body: Data(repeating: 0x61, count: 8 * 1024 + 1))
        let small = HTTPRequest(method: .get, url: "/mobile/1/small")
        #expect(try await recordedOn([large, small]) == [nil, "transport"])
    }

    /// App events take the same way: a large post of them is recorded off the transport's thread.
    @Test func aLargePostOfAppEventsIsRecordedOffItsTransportsThread() async throws {
        func events(_ count: Int) -> HTTPRequest {
            let id = String(repeating: "0", count: 100)
            let items = (0..<count).map { #"{"event":"logout","pushRegId":"\#(id)\#($0)"}"# }.joined(separator: ",")
            return HTTPRequest(
                method: .post, url: RecordingProxy.eventsPath, headerFields: ["Content-Type": "application/json"],
                body: Data("[\(items)]".utf8))
        }
        let small = events(1)
        let large = events(90)
        #expect(large.body.count > 8 * 1024)
        #expect(try await recordedOn([small]) == ["transport"])
        #expect(try await recordedOn([large]).allSatisfy { $0 == nil })
    }

    @Test func anUnreachableUpstreamAnswers502AndIsRecorded() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir, redaction: .disabled)
        let proxy = RecordingProxy(
            upstreams: ["*": "http://127.0.0.1:1"], transport: CurlTransport(timeout: .seconds(5)), writer: writer,
            profile: .mobileMessaging)
        let response = await proxy.forward(HTTPRequest(method: .get, url: "/people/2/persons"))
        #expect(response.status == 502)
        #expect(String(decoding: response.body, as: UTF8.self).contains("BAD_GATEWAY"))
        writer.close()
        let reader = try RecordingReader(path: dir)
        #expect(try reader.next()?.upstream == "backend")
    }

    @Test func routesMobileAndBackendPathsToTheirUpstreams() {
        let writer = try? RecordingWriter(directory: temporaryDirectory(), redaction: .disabled)
        let proxy = RecordingProxy(
            upstreams: ["mobile": "http://m", "backend": "http://b"], transport: InProcessTransport(Echo()),
            writer: writer!, profile: .mobileMessaging)
        #expect(proxy.upstreamName(for: "/mobile/1/appinstance") == "mobile")
        #expect(proxy.upstreamName(for: "/push/2/message/single") == "backend")
    }

    @Test func aRecordingOfTheReferenceReplaysAgainstItWithRemappedIds() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir, redaction: RedactionPolicy(profile: .mobileMessaging))
        let proxy = RecordingProxy(
            upstreams: ["*": "http://reference"], transport: InProcessTransport(ReferenceImplementation()),
            writer: writer, profile: .mobileMessaging)
        let register = await proxy.forward(
            HTTPRequest(
                method: .post, url: "/mobile/1/appinstance?ri=true",
                headerFields: ["Authorization": "App conform-app-code", "Content-Type": "application/json"],
                body: Data(#"{"pushServiceToken":"secret-fcm-token-123","pushServiceType":"Firebase"}"#.utf8)))
        let id = try #require(JSONValue.parse(register.body)["pushRegId"]?.stringValue)
        _ = await proxy.forward(
            HTTPRequest(
                method: .post,
                url:
                    "/mobile/1/appinstance/\(id)/personalize?forceDepersonalize=false&keepAsLead=false&setDeviceAsPrimary=false",
                headerFields: [
                    "Authorization": "App conform-app-code", "pushregistrationid": id,
                    "Content-Type": "application/json",
                ],
                body: Data(#"{"userIdentity":{"externalUserId":"u1","emails":[{"address":"ana@example.com"}]}}"#.utf8)))
        _ = await proxy.forward(
            HTTPRequest(
                method: .get, url: "/mobile/1/appinstance/\(id)/user?ri=true",
                headerFields: ["Authorization": "App conform-app-code", "pushregistrationid": id]))
        writer.close()
        let text = try String(contentsOfFile: dir + "/exchanges.jsonl", encoding: .utf8)
        #expect(!text.contains("ana@example.com"))
        #expect(!text.contains("secret-fcm-token-123"))
        let summary = try await Replayer(
            transport: InProcessTransport(ReferenceImplementation()), options: ReplayOptions(profile: .mobileMessaging)
        ).replay(
            try Trace.open(dir))
        #expect(summary.total == 3)
        #expect(summary.allPassed, "\(summary.mismatches)")
    }
}
