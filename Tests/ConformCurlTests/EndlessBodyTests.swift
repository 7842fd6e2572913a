import ConformCore
import ConformCurl
import ConformTransports
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Implementations that answer with a body that never ends: the transports stop reading at their limit and fail
/// the exchange, so memory stays bounded whatever the implementation sends.
@Suite struct EndlessBodyTests {
    /// A server that streams chunks until the client goes away, counting the bytes it managed to send.
    func endlessServer(sent: ByteCounter) throws -> RawServer {
        try RawServer { connection in
            _ = connection.readRequest()
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0x61, count: 0x10000) + Array("\r\n".utf8)
            while true {
                let ok = chunk.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if ok <= 0 { return }
                sent.add(ok)
                // Stop on our own far past any limit under test, so a broken cap fails instead of running forever.
                if sent.value > 512 * 1024 * 1024 { return }
            }
        }
    }

    @Test func curlStopsReadingAtTheBodyLimit() async throws {
        let sent = ByteCounter()
        let server = try endlessServer(sent: sent)
        defer { server.stop() }
        let limit = 1024 * 1024
        let transport = RebasedTransport(
            base: server.baseURL, inner: CurlTransport(timeout: .seconds(60), maxBodyBytes: limit))
        var caught: TransportError?
        do {
            _ = try await transport.send(HTTPRequest(method: .get, url: "/endless"))
        } catch let error as TransportError {
            caught = error
        }
        #expect(caught?.kind == .tooLarge)
        #expect(
            caught?.message.contains("larger than the limit of 1048576 bytes") == true, "\(String(describing: caught))")
        #expect(caught?.message.contains("--max-body") == true)
        // What the server got into the socket is the limit plus kernel buffers, not the 512 MB it would send.
        #expect(sent.value < limit + 64 * 1024 * 1024, "server sent \(sent.value)")
    }

    @Test func bodiesUpToTheLimitArrive() async throws {
        let server = try RawServer { connection in
            _ = connection.readRequest()
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2048\r\n\r\n" + String(repeating: "b", count: 2048))
        }
        defer { server.stop() }
        let response = try await RebasedTransport(base: server.baseURL, inner: CurlTransport(maxBodyBytes: 2048)).send(
            HTTPRequest(method: .get, url: "/fits"))
        #expect(response.body.count == 2048)
    }

    @Test func anAdapterWithAnEndlessReplyLineIsStopped() async throws {
        // The adapter answers every request with a line that never ends.
        let transport = ExecTransport(
            command: "exec python3 -c 'import sys\nsys.stdin.readline()\nwhile True: sys.stdout.write(\"a\" * 65536)'",
            timeout: .seconds(60), maxBodyBytes: 1024 * 1024)
        var caught: TransportError?
        do {
            _ = try await transport.send(HTTPRequest(method: .get, url: "/endless"))
        } catch let error as TransportError {
            caught = error
        }
        #expect(caught?.kind == .tooLarge, "\(String(describing: caught))")
        #expect(caught?.meansCannotRun == false, "an oversized answer is the implementation's fault")
        #expect(caught?.message.contains("--max-body") == true)
    }
}

/// Bytes counted across threads.
final class ByteCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add(_ n: Int) { count.add(n, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
