import ConformCrypto
import ConformTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A TLS handshake that waits on its client costs the server nothing (issue 33, point 4): the built binary's HTTPS
/// listeners (`serve --tls`, `serve --tls-cert`) and the forward proxy's intercepted tunnels, each holding clients
/// that stalled in the middle of a ClientHello, use next to no CPU while a normal client is served beside them.
@Suite(.enabled(if: Tool.has("curl"), "needs curl"))
struct TLSHandshakeCostTests {
    /// How long the server's CPU time is read while stalled handshakes are held: the quantity under test.
    static let window: useconds_t = 2_000_000
    /// The most CPU a server may spend over ``window`` while it holds stalled handshakes. An idle listener uses about
    /// 0.01 s (its sweep of slow connections, once a second); one thread spinning on a stalled handshake uses the
    /// whole window (2 s) on a quiet machine, and several times this bound on one loaded by 20 runnable threads.
    static let cpuBound = 0.1

    /// The first 20 bytes of a ClientHello: the record header (handshake, 512 bytes), the handshake header
    /// (ClientHello, 508 bytes), the version and the start of the random. The rest never comes.
    static let partialClientHello: [UInt8] =
        [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03] + Array(repeating: 0x5A, count: 9)

    /// The user and system time `pid` has used, in seconds, from `/proc/PID/stat`.
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let end = stat.range(of: ")", options: .backwards) else { throw ProcessFailure("no stat for \(pid)") }
        // After the command's closing parenthesis: state is field 3, utime field 14, stime field 15.
        let fields = stat[end.upperBound...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw ProcessFailure("unexpected /proc/\(pid)/stat: \(stat)")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Whether the server still holds `client`'s connection open (nothing to read, no end of stream).
    static func isHeld(_ client: RawClient) -> Bool {
        var byte: UInt8 = 0
        let count = recv(client.fd, &byte, 1, Int32(MSG_DONTWAIT))
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    /// The CPU `pid` uses over ``window`` while `stalled` are held, and whether they are all still open afterwards (the
    /// head timeout, 10 s, is far off), so the window measured them waiting.
    static func measure(_ pid: Int32, _ stalled: Stalled) throws -> (cpu: Double, held: Bool) {
        let before = try cpuSeconds(pid)
        usleep(window)
        let used = try cpuSeconds(pid) - before
        return (used, stalled.clients.allSatisfy(isHeld))
    }

    /// Stalled clients, held open by the test until it ends; only touched from one thread at a time.
    final class Stalled: @unchecked Sendable {
        let clients: [RawClient]
        init(_ clients: [RawClient]) { self.clients = clients }
    }

    /// Opens the stalled clients: one that sends 20 bytes of a ClientHello, one that sends its record header only,
    /// one that sends nothing.
    static func stall(port: UInt16) throws -> Stalled {
        let clients = try (0..<3).map { _ in try RawClient(port: port, receiveTimeoutSeconds: 30) }
        #expect(clients[0].send(partialClientHello))
        #expect(clients[1].send(Array(partialClientHello.prefix(5))))
        return Stalled(clients)
    }

    /// `serve --tls` (a leaf of the local CA) and `serve --tls-cert`/`--tls-key` (a leaf the test made).
    @Test(arguments: ["--tls", "--tls-cert"])
    func aStalledHandshakeCostsTheListenerNothing(_ listener: String) async throws {
        let scratch = try Scratch("tlsstall")
        let environment = TLSCommandTests.environment(scratch)
        let caFile =
            listener == "--tls" ? scratch.path("config/conform/ca/ca-cert.pem") : scratch.path("own-ca.pem")
        let options =
            listener == "--tls"
            ? ["--tls"] : ["--tls-cert", scratch.path("leaf.pem"), "--tls-key", scratch.path("leaf-key.pem")]
        if listener == "--tls-cert" {
            let authority = try CertificateAuthority.create()
            let leaf = try authority.issue(for: ["127.0.0.1"].compactMap(ServerName.init))
            try authority.certificate.pem.write(toFile: caFile, atomically: true, encoding: .utf8)
            try leaf.certificate.pem.write(toFile: scratch.path("leaf.pem"), atomically: true, encoding: .utf8)
            try leaf.key.pem.write(toFile: scratch.path("leaf-key.pem"), atomically: true, encoding: .utf8)
        }
        let server = try await offThePool {
            try ConformProcess(
                ["serve", "--port", "0"] + options, scratch: scratch,
                banner: "Serving the reference implementation on ", environment: environment)
        }
        let port = UInt16(server.baseURL.split(separator: ":").last ?? "") ?? 0
        let stalled = try await offThePool { try Self.stall(port: port) }
        // A normal client completes its handshake and is answered while the stalled ones are held; once it has, the
        // server has taken every stalled connection (they were accepted before it).
        let answered = try await ChildProcess.output(
            Tool.path("curl")!,
            ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{ssl_verify_result}", "--cacert", caFile, server.baseURL])
        #expect(answered.output == "404 0", "\(answered.output)")
        let measured = try await offThePool { try Self.measure(server.process.processIdentifier, stalled) }
        #expect(measured.cpu < Self.cpuBound, "\(listener): \(measured.cpu) s of CPU over 2 s, 3 handshakes stalled")
        #expect(measured.held, "\(listener): a stalled handshake was closed before the head timeout")
        let again = try await ChildProcess.output(
            Tool.path("curl")!,
            ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", caFile, server.baseURL])
        #expect(again.output == "404", "\(again.output)")
        _ = try await offThePool { try server.interrupt() }
    }

    /// A client whose trust file holds 140 certificates (139 other CAs and the local one; about what the system's
    /// store holds) loads it between opening each connection and sending its ClientHello. Every such handshake used
    /// to wait on a spinning server thread, and the bundled plan against a healthy `serve --tls` ended DOES NOT
    /// CONFORM, every step "did not answer in time" (curl error 28 after 10 s).
    @Test func aClientWithABigTrustStoreIsAnsweredAndTheBundledPlanConforms() async throws {
        let scratch = try Scratch("tlsstore")
        let served = try await TLSCommandTests.serveTLS(scratch)
        var store = try (0..<139).map { _ in try CertificateAuthority.create().certificate.pem }
        store.append(try String(contentsOfFile: scratch.path("config/conform/ca/ca-cert.pem"), encoding: .utf8))
        try store.joined().write(toFile: scratch.path("store.pem"), atomically: true, encoding: .utf8)
        let run = await TLSCommandTests().conform(
            ["run", "--target", served.baseURL, "--cacert", scratch.path("store.pem")], environment: [:])
        #expect(run.code == 0, "\(run.out.suffix(2000))\(run.err)")
        #expect(run.out.hasSuffix("Result: CONFORMS\n"), "\(run.out.suffix(2000))")
        _ = try await offThePool { try served.interrupt() }
    }

    /// The forward proxy's tunnels: a client whose `CONNECT` to an allowed host is answered, then stalls in its
    /// ClientHello, costs the proxy nothing either.
    @Test func aStalledTunnelHandshakeCostsTheForwardProxyNothing() async throws {
        let fixture = try await ForwardRecordTests.Fixture("tunnelstall")
        let proxyPort = UInt16(fixture.proxy.split(separator: ":").last ?? "") ?? 0
        let authority = "localhost:\(fixture.port)"
        let stalled = try await offThePool {
            let clients = try (0..<3).map { index in
                let client = try RawClient(port: proxyPort, receiveTimeoutSeconds: 30)
                #expect(client.send("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n"))
                var head: [UInt8] = []
                var byte: UInt8 = 0
                while !head.ends(with: Array("\r\n\r\n".utf8)), head.count < 4096, recv(client.fd, &byte, 1, 0) == 1 {
                    head.append(byte)
                }
                let text = String(decoding: head, as: UTF8.self)
                #expect(text.hasPrefix("HTTP/1.1 200"), "CONNECT \(authority): \(text)")
                if index < 2 { #expect(client.send(Array(Self.partialClientHello.prefix(index == 0 ? 20 : 5)))) }
                return client
            }
            return Stalled(clients)
        }
        let answered = try await ChildProcess.output(
            Tool.path("curl")!,
            [
                "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--proxy", fixture.proxy, "--cacert", fixture.ca,
                fixture.origin + "/",
            ])
        #expect(answered.output == "404", "through the proxy: \(answered.output)")
        let measured = try await offThePool { try Self.measure(fixture.recorder.process.processIdentifier, stalled) }
        #expect(measured.cpu < Self.cpuBound, "record --forward: \(measured.cpu) s of CPU over 2 s, 3 tunnels stalled")
        #expect(measured.held, "record --forward: a stalled tunnel was closed before the head timeout")
        _ = try await fixture.finish()
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self.suffix(suffix.count)) == suffix
    }
}
