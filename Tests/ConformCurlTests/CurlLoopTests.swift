import ConformCore
import ConformCurl
import ConformServer
import Foundation
import Synchronization
import Testing

/// The one thread that drives every exchange: the bound on exchanges in flight, tasks that run on that thread, and
/// cancelling an exchange that still waits for its turn.
@Suite("CurlTransport loop")
struct CurlLoopTests {
    /// Answers after a short pause and counts how many requests it holds at once.
    final class Counting: HTTPHandler {
        let inFlight = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            let now = inFlight.add(1, ordering: .sequentiallyConsistent).newValue
            _ = most.max(now, ordering: .sequentiallyConsistent)
            Thread.sleep(forTimeInterval: 0.02)
            inFlight.subtract(1, ordering: .sequentiallyConsistent)
            return HTTPResponse(
                status: 200, headerFields: ["X-Target": request.target], body: Data(request.target.utf8))
        }
    }

    func sendAll(_ transport: CurlTransport, base: String, count: Int) async throws -> [String] {
        try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<count {
                group.addTask {
                    let response = try await transport.send(HTTPRequest(method: .get, url: "\(base)/item/\(index)"))
                    #expect(response.status == 200)
                    #expect(response.headerFields["X-Target"] == "/item/\(index)")
                    return String(decoding: response.body, as: UTF8.self)
                }
            }
            var bodies: [String] = []
            for try await body in group { bodies.append(body) }
            return bodies
        }
    }

    @Test func exchangesBeyondTheBoundWaitTheirTurnAndEachGetsItsOwnAnswer() async throws {
        let handler = Counting()
        var limits = HTTPServerLimits.default
        limits.threads = 8
        let server = try HTTPServer(handler: handler, limits: limits)
        try server.start()
        defer { server.stop() }
        let transport = CurlTransport(timeout: .seconds(60), maxConcurrentExchanges: 3)
        let bodies = try await sendAll(transport, base: server.baseURL, count: 24)
        #expect(bodies.sorted() == (0..<24).map { "/item/\($0)" }.sorted())
        #expect(handler.most.load(ordering: .sequentiallyConsistent) <= 3)
    }

    @Test func tasksThatPreferTheTransportsExecutorSendAndReceiveOnIt() async throws {
        // A kept-alive connection waiting for its next head is closed after the header timeout: a long one here, so
        // a test starved of its thread for a while on a loaded machine still finds its connection open.
        var limits = HTTPServerLimits.default
        limits.headerTimeoutSeconds = 120
        limits.requestTimeoutSeconds = 120
        let server = try HTTPServer(handler: Counting(), limits: limits)
        try server.start()
        defer { server.stop() }
        let transport = CurlTransport(timeout: .seconds(60), maxConcurrentExchanges: 4)
        let executor = try #require(transport.preferredTaskExecutor)
        let bodies = try await withTaskExecutorPreference(executor) {
            try await sendAll(transport, base: server.baseURL, count: 16)
        }
        #expect(bodies.count == 16)
        // Sequential exchanges from that thread reuse one connection.
        let first = try await withTaskExecutorPreference(executor) {
            try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/a"))
        }
        let second = try await withTaskExecutorPreference(executor) {
            try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/b"))
        }
        #expect(first.status == 200 && second.status == 200)
        #expect(second.timing?.reusedConnection == true)
    }

    @Test func cancellingAnExchangeThatWaitsForItsTurnEndsItAndLeavesTheTransportUsable() async throws {
        let release = Atomic<Bool>(false)
        let arrived = Atomic<Int>(0)
        let server = try RawServer { connection in
            connection.readRequest()
            arrived.add(1, ordering: .sequentiallyConsistent)
            // Holds the one slot until the test lets go (or a minute passes), then answers.
            for _ in 0..<6000 where !release.load(ordering: .sequentiallyConsistent) {
                Thread.sleep(forTimeInterval: 0.01)
            }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        }
        defer { server.stop() }
        let transport = CurlTransport(timeout: .seconds(60), maxConcurrentExchanges: 1)
        let holder = Task { try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/hold")) }
        // Progress-based: wait until the server has the first request, so the second one queues behind it.
        while arrived.load(ordering: .sequentiallyConsistent) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let queued = Task { try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/queued")) }
        // Until the second exchange waits for its turn (bounded), so the cancellation reaches a queued one.
        for _ in 0..<6000 where transport.waitingExchanges == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try #require(transport.waitingExchanges == 1, "the second exchange never queued")
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.value }
        release.store(true, ordering: .sequentiallyConsistent)
        let held = try await holder.value
        #expect(held.status == 200 && held.body == Data("ok".utf8))
        #expect(arrived.load(ordering: .sequentiallyConsistent) == 1, "the cancelled exchange was never sent")
        let after = try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/after"))
        #expect(after.status == 200)
    }

    /// Holds each request of a burst until the whole burst has arrived (or ten seconds pass), so a burst needs as
    /// many connections as it has requests, however slowly a loaded machine starts the client's tasks.
    final class Gathering: HTTPHandler {
        let size: Int
        let arrived = Mutex<[String: Int]>([:])
        let incomplete = Atomic<Int>(0)
        init(size: Int) { self.size = size }
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            let parts = request.target.split(separator: "/")
            if parts.count == 3, parts[0] == "burst" {
                let round = String(parts[1])
                arrived.withLock { $0[round, default: 0] += 1 }
                let deadline = Date().addingTimeInterval(10)
                while arrived.withLock({ $0[round, default: 0] }) < size {
                    guard Date() < deadline else {
                        incomplete.add(1, ordering: .sequentiallyConsistent)
                        break
                    }
                    Thread.sleep(forTimeInterval: 0.002)
                }
            }
            return HTTPResponse(status: 200, body: Data(request.target.utf8))
        }
    }

    @Test func connectionsOpenedForABurstStayOpenForTheNextBurst() async throws {
        let handler = Gathering(size: 8)
        var limits = HTTPServerLimits.default
        // A thread per connection: a request held until its burst is complete holds up no other connection.
        limits.threadPerConnection = true
        // The server never closes an idle connection itself, however slow a loaded machine makes the test: every
        // connection opened is one the client chose to open.
        limits.connectionTimeoutSeconds = 0
        limits.headerTimeoutSeconds = 3600
        limits.requestTimeoutSeconds = 3600
        let server = try HTTPServer(handler: handler, limits: limits)
        try server.start()
        defer { server.stop() }
        let transport = CurlTransport(timeout: .seconds(600), maxConcurrentExchanges: 8)
        // Bursts of 8 at once (each held by the server until all 8 are there, so they need 8 connections), each
        // followed by a single exchange: libcurl's default cache shrank to four idle connections per transfer in
        // flight, and closed most of a burst's connections as soon as the burst ended.
        var opened = 0
        for round in 0..<6 {
            let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await transport.send(
                            HTTPRequest(method: .get, url: "\(server.baseURL)/burst/\(round)/\(index)"))
                    }
                }
                var all: [HTTPResponse] = []
                for try await response in group { all.append(response) }
                return all
            }
            let single = try await transport.send(HTTPRequest(method: .get, url: "\(server.baseURL)/single/\(round)"))
            for response in responses + [single] {
                #expect(response.status == 200)
                if response.timing?.reusedConnection == false { opened += 1 }
            }
        }
        #expect(handler.incomplete.load(ordering: .sequentiallyConsistent) == 0, "every burst ran 8 at once")
        #expect(opened <= 8, "54 exchanges, at most 8 at once, opened \(opened) connections")
    }
}
