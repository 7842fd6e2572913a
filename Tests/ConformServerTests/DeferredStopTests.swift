import ConformCore
import ConformCurl
import ConformServer
import Synchronization
import Testing

/// libmicrohttpd aborts the process when its daemon stops with a connection suspended. A server that defers its
/// answers (a proxy, the mock's client faults) waits for the suspended connections before it stops; a request that
/// arrives after that wait and before the daemon's end must not be suspended: its connection is closed unanswered.
@Suite struct DeferredStopTests {
    /// Answers every request from another task, a little later.
    static let handler = AsyncHandlerAdapter { request in
        await Task.yield()
        return .json(200, ["path": .string(request.path)])
    }

    /// The statuses that came back, and whether the round's server has stopped.
    final class Tally: Sendable {
        let statuses = Mutex<[Int: Int]>([:])
        let stopped = Atomic(false)
        var answered: Int { statuses.withLock { $0.values.reduce(0, +) } }
    }

    @Test func stoppingWhileRequestsKeepComingSuspendsNothingMore() async throws {
        let tally = Tally()
        let transport = CurlTransport(timeout: .seconds(30))
        // Each round: clients keep sending until the server stops under them; the process survives every stop.
        for _ in 0..<40 {
            let server = try HTTPServer(handler: Self.handler, limits: HTTPServerLimits(threads: 2))
            try server.start()
            let base = server.baseURL
            let start = tally.answered
            tally.stopped.store(false, ordering: .releasing)
            await withTaskGroup(of: Void.self) { group in
                for client in 0..<4 {
                    group.addTask {
                        var sent = 0
                        while !tally.stopped.load(ordering: .acquiring), sent < 10_000 {
                            sent += 1
                            guard
                                let response = try? await transport.send(
                                    HTTPRequest(method: .get, url: base + "/c\(client)"))
                            else { continue }
                            tally.statuses.withLock { $0[response.status.code, default: 0] += 1 }
                        }
                    }
                }
                group.addTask {
                    // Stops once the clients are busy: after a few answers, while more are under way.
                    while tally.answered < start + 8 { await Task.yield() }
                    server.stop()
                    tally.stopped.store(true, ordering: .releasing)
                }
            }
        }
        let seen = tally.statuses.withLock { $0 }
        // Only the handler's answers came back; a request the stop caught met a closed connection.
        #expect(Set(seen.keys) == [200], "\(seen)")
    }
}
