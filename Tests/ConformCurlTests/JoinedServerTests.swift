import ConformCore
import ConformCurl
import ConformServer
import ConformTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A server that joins a transport's event loops (`HTTPServer(loops:)`, `conform record`'s listener): each request is
/// served, sent on and answered on the loop that received it; answers made on other threads still go out; stopping and
/// pausing end its daemons while the loops go on.
@Suite struct JoinedServerTests {
    /// The caller's thread, as a string.
    static var thread: String { String(UInt(pthread_self())) }

    /// A front that forwards every request through `transport`; each answer says on which thread the server received
    /// the request, and on which threads the handler started and ended.
    struct Front: DeferredHTTPHandler {
        let inner: any Transport
        let executor: any TaskExecutor

        init(_ transport: CurlTransport, upstream: String) {
            inner = RebasedTransport(base: upstream, inner: transport)
            executor = transport.preferredTaskExecutor!
        }

        func handle(_ request: HTTPRequest) -> HTTPResponse { .empty(500) }

        func begin(_ request: HTTPRequest, answer: @escaping @Sendable (HTTPResponse) -> Void) {
            let received = JoinedServerTests.thread
            let inner = self.inner
            Task.detached(executorPreference: executor) {
                let started = JoinedServerTests.thread
                var response = (try? await inner.send(request)) ?? .empty(502)
                response.headerFields["X-Threads"] = [received, started, JoinedServerTests.thread].joined(
                    separator: " ")
                answer(response)
            }
        }
    }

    /// Answers every request with its target, starting on `executor`.
    static func echo(on executor: (any TaskExecutor)?) -> AsyncHandlerAdapter {
        AsyncHandlerAdapter(executor: executor) { request in
            HTTPResponse(status: 200, headerFields: [:], body: Data(request.target.utf8))
        }
    }

    /// Sends `count` GETs over `connections` clients at once; every answer's body, and the fronts' thread headers.
    static func load(_ base: String, connections: Int, count: Int) async throws -> [(String, String)] {
        let client = CurlTransport(timeout: .seconds(30), maxConcurrentExchanges: connections)
        return try await withThrowingTaskGroup(of: (String, String).self) { group in
            for index in 0..<count {
                group.addTask {
                    let answer = try await client.send(HTTPRequest(method: .get, url: "\(base)/item/\(index)"))
                    return (String(decoding: answer.body, as: UTF8.self), answer.headerFields["X-Threads"] ?? "")
                }
            }
            var all: [(String, String)] = []
            for try await one in group { all.append(one) }
            return all
        }
    }

    @Test func everyRequestIsServedSentAndAnsweredOnTheLoopThatReceivedIt() async throws {
        let upstream = try HTTPServer(handler: EchoTargetHandler())
        try upstream.start()
        defer { upstream.stop() }
        let transport = CurlTransport(timeout: .seconds(30), loops: 2)
        #expect(transport.ioLoops.count == 2)
        let server = try HTTPServer(handler: Front(transport, upstream: upstream.baseURL), loops: transport.ioLoops)
        try server.start()
        defer { server.stop() }
        #expect(server.joinsLoops)
        let answers = try await Self.load(server.baseURL, connections: 8, count: 200)
        #expect(answers.map(\.0).sorted() == (0..<200).map { "/item/\($0)" }.sorted())
        // Received, started and answered on one thread each time, and only the two loops' threads ever do it.
        let threads = answers.map { $0.1.split(separator: " ").map(String.init) }
        #expect(threads.allSatisfy { $0.count == 3 && Set($0).count == 1 }, "\(Set(threads))")
        #expect(Set(threads.compactMap(\.first)).count <= 2)
    }

    @Test func anAnswerMadeOnAnotherThreadIsSent() async throws {
        let transport = CurlTransport(timeout: .seconds(30), loops: 2)
        // The answer is made on Dispatch's threads, which the daemons' loops do not watch.
        let handler = Self.echo(on: HandlerExecutor.shared)
        let server = try HTTPServer(handler: handler, loops: transport.ioLoops)
        try server.start()
        defer { server.stop() }
        #expect(server.joinsLoops)
        let answers = try await Self.load(server.baseURL, connections: 4, count: 60)
        #expect(answers.map(\.0).sorted() == (0..<60).map { "/item/\($0)" }.sorted())
    }

    @Test func stoppingAnswersWhatIsInFlightAndLeavesTheLoopsToTheTransport() async throws {
        let upstream = try HTTPServer(handler: EchoTargetHandler())
        try upstream.start()
        defer { upstream.stop() }
        let transport = CurlTransport(timeout: .seconds(30), loops: 2)
        let (arrived, arrival) = AsyncStream<Void>.makeStream()
        let release = Gate()
        let handler = AsyncHandlerAdapter(executor: transport.preferredTaskExecutor) { request in
            arrival.yield()
            await release.wait()
            return HTTPResponse(status: 200, headerFields: [:], body: Data(request.target.utf8))
        }
        let server = try HTTPServer(handler: handler, loops: transport.ioLoops)
        try server.start()
        let base = server.baseURL
        let client = CurlTransport(timeout: .seconds(30))
        let waiting = Task { try await client.send(HTTPRequest(method: .get, url: "\(base)/held")) }
        var iterator = arrived.makeAsyncIterator()
        _ = await iterator.next()
        // The stop waits for the held request, which is answered once released.
        let stopped = Task.detached { server.stop() }
        release.open()
        let answer = try await waiting.value
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self) == "/held")
        await stopped.value
        #expect(server.boundPort == 0)
        // The loops still drive the transport's own exchanges.
        let after = try await transport.send(HTTPRequest(method: .get, url: "\(upstream.baseURL)/after"))
        #expect(String(decoding: after.body, as: UTF8.self) == "/after")
    }

    @Test func aPausedJoinedServerListensAgainOnTheSamePort() async throws {
        let transport = CurlTransport(timeout: .seconds(30), loops: 2)
        let handler = Self.echo(on: transport.preferredTaskExecutor)
        let server = try HTTPServer(handler: handler, loops: transport.ioLoops)
        try server.start()
        defer { server.stop() }
        let port = server.boundPort
        #expect(try await Self.load(server.baseURL, connections: 2, count: 4).count == 4)
        let (ended, end) = AsyncStream<HTTPServer.PauseEnd>.makeStream()
        let paused = server.pause(for: .milliseconds(300), resumed: { end.yield($0) })
        #expect(paused)
        var iterator = ended.makeAsyncIterator()
        #expect(await iterator.next() == .listening)
        #expect(server.boundPort == port)
        let state = HeldPorts.state(of: port)
        #expect(state.held && state.listening)
        let answers = try await Self.load(server.baseURL, connections: 4, count: 40)
        #expect(answers.map(\.0).sorted() == (0..<40).map { "/item/\($0)" }.sorted())
    }

    @Test func aDaemonThatReachedItsConnectionLimitAcceptsAgainOnceItsConnectionsClose() async throws {
        let transport = CurlTransport(timeout: .seconds(30), loops: 2)
        let handler = Self.echo(on: transport.preferredTaskExecutor)
        // One connection a daemon: two kept-alive clients, each answered once, fill both, and each daemon stops
        // listening at its limit. A client that lands on a daemon already full is closed unanswered: try another.
        let server = try HTTPServer(
            handler: handler, limits: HTTPServerLimits(maxConnections: 2, maxWaitingConnections: 2),
            loops: transport.ioLoops)
        try server.start()
        defer { server.stop() }
        var held: [RawClient] = []
        var tries = 0
        while held.count < 2, tries < 20 {
            tries += 1
            let client = try RawClient(port: server.boundPort, receiveTimeoutSeconds: 5)
            if client.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n"),
                client.read(until: "/held").hasPrefix("HTTP/1.1 200")
            {
                held.append(client)
            }
        }
        #expect(held.count == 2, "\(held.count) clients held after \(tries) tries")
        // Both go: nothing else happens on either daemon, which must still listen again.
        held.removeAll()
        let client = CurlTransport(timeout: .seconds(5))
        let answer = try await client.send(HTTPRequest(method: .get, url: "\(server.baseURL)/after"))
        #expect(String(decoding: answer.body, as: UTF8.self) == "/after")
    }

    @Test func aServerThatCannotJoinRunsItsOwnThreads() throws {
        let transport = CurlTransport(loops: 2)
        // A handler that answers at once has no deferred answer to wait for: it keeps the server's own threads.
        let blocking = try HTTPServer(handler: EchoTargetHandler(), loops: transport.ioLoops)
        #expect(!blocking.joinsLoops)
        var limits = HTTPServerLimits.default
        limits.threadPerConnection = true
        let deferred = AsyncHandlerAdapter { _ in .empty(204) }
        #expect(!(try HTTPServer(handler: deferred, limits: limits, loops: transport.ioLoops)).joinsLoops)
        #expect(!(try HTTPServer(handler: deferred, forwarding: true, loops: transport.ioLoops)).joinsLoops)
        #expect(try HTTPServer(handler: deferred, loops: transport.ioLoops).joinsLoops)
    }

    /// Answers every request with its target.
    struct EchoTargetHandler: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            HTTPResponse(status: 200, headerFields: [:], body: Data(request.target.utf8))
        }
    }

    /// Held shut until opened; every waiter goes on once it is.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.open { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
