import ConformCore
import ConformCurl
import ConformServer
import ConformTestSupport
import Foundation
import Testing

/// `HTTPServer.pause(for:resumed:)`, the offline window of `--client-faults offline`: the port refuses connections
/// (no listener at all), then the same port serves again.
@Suite struct HTTPServerPauseTests {
    /// The first end a pause reports.
    func ends() -> (AsyncStream<HTTPServer.PauseEnd>, @Sendable (HTTPServer.PauseEnd) -> Void) {
        let (stream, continuation) = AsyncStream<HTTPServer.PauseEnd>.makeStream()
        return (stream, { continuation.yield($0) })
    }

    @Test func aPausedServerRefusesConnectionsThenListensOnTheSamePortAgain() async throws {
        let server = try HTTPServer(handler: EchoHandler())
        try server.start()
        defer { server.stop() }
        let port = server.boundPort
        let transport = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        #expect(try await transport.send(HTTPRequest(method: .get, url: "/before")).status == 200)
        let (ended, resumed) = ends()
        #expect(server.pause(for: .seconds(3), resumed: resumed))
        // The pause closes the listener off the caller's thread: poll until a connection is refused (bounded).
        var refused: TransportError?
        for _ in 0..<300 where refused == nil {
            do {
                _ = try await transport.send(HTTPRequest(method: .get, url: "/during"))
                try await Task.sleep(for: .milliseconds(10))
            } catch let error as TransportError {
                refused = error
            }
        }
        #expect(refused?.kind == .connectionRefused, "\(String(describing: refused))")
        var iterator = ended.makeAsyncIterator()
        #expect(await iterator.next() == .listening)
        #expect(server.boundPort == port)
        #expect(try await transport.send(HTTPRequest(method: .get, url: "/after")).status == 200)
    }

    /// A stop during the window keeps the server stopped: the pause says it was superseded and nothing listens.
    @Test func aStopDuringThePauseKeepsTheServerStopped() async throws {
        let server = try HTTPServer(handler: EchoHandler())
        try server.start()
        defer { server.stop() }
        let base = server.baseURL
        let (ended, resumed) = ends()
        #expect(server.pause(for: .milliseconds(200), resumed: resumed))
        server.stop()
        var iterator = ended.makeAsyncIterator()
        #expect(await iterator.next() == .superseded)
        #expect(server.boundPort == 0)
        await #expect(throws: TransportError.self) {
            _ = try await RebasedTransport(base: base, inner: CurlTransport()).send(HTTPRequest(method: .get, url: "/"))
        }
        #expect(!server.pause(for: .seconds(1)), "a stopped server has nothing to pause")
    }
}
