import ConformCore
import ConformCurl
import ConformServer
import ConformTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `HTTPServer.pause(for:offline:resumed:)`, the offline window of `--client-faults offline`: the port refuses
/// connections (nothing listens), stays held by the server meanwhile, then the same port serves again.
///
/// Whether the port is held or listened on is read from this process's own sockets (`HeldPorts`), never by connecting
/// to a port the server let go: another program may have been given it.
@Suite struct HTTPServerPauseTests {
    /// The events of one pause: the server went down, and how the window ended.
    struct Events {
        let offline: AsyncStream<Void>
        let ended: AsyncStream<HTTPServer.PauseEnd>
        let wentOffline: @Sendable () -> Void
        let resumed: @Sendable (HTTPServer.PauseEnd) -> Void

        init() {
            let (offline, down) = AsyncStream<Void>.makeStream()
            let (ended, end) = AsyncStream<HTTPServer.PauseEnd>.makeStream()
            self.offline = offline
            self.ended = ended
            wentOffline = { down.yield() }
            resumed = { end.yield($0) }
        }

        func first<T>(_ stream: AsyncStream<T>) async -> T? {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
    }

    @Test func aPausedServerRefusesConnectionsThenListensOnTheSamePortAgain() async throws {
        let server = try HTTPServer(handler: EchoHandler())
        try server.start()
        defer { server.stop() }
        let port = server.boundPort
        let transport = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        #expect(try await transport.send(HTTPRequest(method: .get, url: "/before")).status == 200)
        let events = Events()
        #expect(server.pause(for: .seconds(5), offline: events.wentOffline, resumed: events.resumed))
        #expect(await events.first(events.offline) != nil)
        // Down: the port is held by a socket that does not listen, so a connection is refused.
        #expect(HeldPorts.state(of: port) == (held: true, listening: false))
        do {
            let answer = try await transport.send(HTTPRequest(method: .get, url: "/during"))
            Issue.record("a paused server answered \(answer.status)")
        } catch let error as TransportError {
            #expect(error.kind == .connectionRefused, "\(error)")
        }
        #expect(await events.first(events.ended) == .listening)
        #expect(server.boundPort == port)
        #expect(HeldPorts.state(of: port) == (held: true, listening: true))
        let listener = HeldPorts.sockets(on: port)
        #expect(try await transport.send(HTTPRequest(method: .get, url: "/after")).status == 200)
        // The held socket became the listener, and the server closes it when it stops.
        server.stop()
        #expect(!listener.isEmpty && !HeldPorts.anyOpen(listener))
    }

    /// While the server is down, its port is not free: a socket bound to it elsewhere is refused the address, so the
    /// server can listen on it again when the window ends. (A server that let the port go could find it taken.)
    @Test func aPausedServersPortIsHeldUntilItListensAgain() async throws {
        let server = try HTTPServer(handler: EchoHandler())
        try server.start()
        defer { server.stop() }
        let port = server.boundPort
        let events = Events()
        // No connection was made, so no connection's TIME_WAIT can hold the port: only the server can.
        #expect(server.pause(for: .milliseconds(500), offline: events.wentOffline, resumed: events.resumed))
        #expect(await events.first(events.offline) != nil)
        let other = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(other >= 0)
        defer { close(other) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(other, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let bindError = errno
        #expect(bound == -1 && bindError == EADDRINUSE, "bind returned \(bound), errno \(bindError)")
        #expect(await events.first(events.ended) == .listening)
        let transport = RebasedTransport(base: server.baseURL, inner: CurlTransport())
        #expect(try await transport.send(HTTPRequest(method: .get, url: "/after")).status == 200)
    }

    /// A stop during the window keeps the server stopped: the pause says it was superseded, and the server neither
    /// listens on its port nor holds it.
    @Test func aStopDuringThePauseKeepsTheServerStopped() async throws {
        let server = try HTTPServer(handler: EchoHandler())
        try server.start()
        defer { server.stop() }
        let port = server.boundPort
        let events = Events()
        #expect(server.pause(for: .seconds(60), offline: events.wentOffline, resumed: events.resumed))
        #expect(await events.first(events.offline) != nil)
        let reservation = HeldPorts.sockets(on: port)
        server.stop()
        // The stop ends the window at once (not when it would have ended): the port let go, the pause told.
        #expect(!reservation.isEmpty && !HeldPorts.anyOpen(reservation))
        let end = await events.first(events.ended)
        #expect(end == .superseded, "\(String(describing: end))")
        #expect(server.boundPort == 0)
        #expect(!server.pause(for: .seconds(1)), "a stopped server has nothing to pause")
    }
}
