import ConformCore
import ConformCrypto
import ConformTestSupport
import Foundation
import Testing

@testable import ConformServer

#if canImport(Glibc)
    import Glibc
#endif

/// `ForwardProxyServer` in front of the echo handler, reached by curl, `openssl s_client` and raw sockets: what it
/// opens, what it refuses, and how it ends what a hostile client starts. The echo handler shows the URL each request
/// reached the handler with, so the tests see which origin a tunnel stands for.
@Suite(.enabled(if: Tool.has("curl") && Tool.has("openssl"), "needs curl and openssl"))
struct ForwardProxyServerTests {
    /// A CA in a scratch directory and a started proxy that opens `allowed` (by default `localhost:8443`) with
    /// leaves from it; the head and handshake are bounded by 2 s, a tunnel's idleness by 5 s.
    final class Fixture: Sendable {
        let scratch: Scratch
        let authority: CertificateAuthority
        let proxy: ForwardProxyServer
        var caFile: String { scratch.path("ca.pem") }
        var proxyURL: String { proxy.baseURL }

        init(
            allowed: [String] = ["localhost:8443"], otherHosts: ForwardPolicy.OtherHosts = .refuse,
            tunnelPorts: [UInt16] = ForwardPolicy.defaultTunnelPorts, maxConnections: Int = 1024
        ) throws {
            scratch = try Scratch("forward")
            let authority = try CertificateAuthority.create()
            self.authority = authority
            try authority.certificate.pem.write(toFile: scratch.path("ca.pem"), atomically: true, encoding: .utf8)
            var limits = HTTPServerLimits.default
            limits.headerTimeoutSeconds = 2
            limits.requestTimeoutSeconds = 5
            limits.maxConnections = maxConnections
            let leaves = LeafCache(authority: authority)
            proxy = try ForwardProxyServer(
                handler: EchoHandler(), limits: limits,
                policy: ForwardPolicy(
                    allowed: allowed.compactMap(ForwardAuthority.init), otherHosts: otherHosts, tunnelPorts: tunnelPorts
                ),
                identity: { host in
                    guard let name = ServerName(host), let leaf = try? leaves.leaf(for: [name]) else { return nil }
                    return TLSIdentity(keyPEM: leaf.key.pem, certificatePEM: leaf.certificate.pem)
                }, idleTimeout: .seconds(5))
            try proxy.start()
        }

        deinit { proxy.stop() }

        /// The failed handshakes once they reach `expected` or 5 s pass: a tunnel's failure is counted when the server
        /// has finished with its connection, a moment after the client sees it closed.
        func failedHandshakes(reaching expected: Int) -> Int {
            let deadline = ContinuousClock.now + .seconds(5)
            while proxy.failedHandshakeCount < expected && ContinuousClock.now < deadline { usleep(10_000) }
            return proxy.failedHandshakeCount
        }
    }

    /// curl through the proxy to an allowed host: the handler sees each request with the tunnel's origin, two
    /// requests share the tunnel, and the leaf is verified against the CA for the host's name.
    @Test func curlThroughConnectReachesTheHandlerWithTheTunnelsOrigin() async throws {
        let fixture = try Fixture()
        let outcome = try await ChildProcess.output(
            Tool.path("curl")!,
            [
                "-sS", "--proxy", fixture.proxyURL, "--cacert", fixture.caFile, "-w", "\n%{ssl_verify_result}\n",
                "https://localhost:8443/one?x=1", "https://localhost:8443/two",
            ])
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains(#""url":"https://localhost:8443/one?x=1""#), "\(outcome.output)")
        #expect(outcome.output.contains(#""url":"https://localhost:8443/two""#), "\(outcome.output)")
        #expect(outcome.output.components(separatedBy: "\n0\n").count == 3, "both verified: \(outcome.output)")
        let untrusted = try await ChildProcess.output(
            Tool.path("curl")!, ["-sS", "--proxy", fixture.proxyURL, "https://localhost:8443/"])
        #expect(untrusted.status == 60, "\(untrusted.output)")
    }

    /// An absolute-form plain-HTTP request goes to the handler as sent; it judges the host itself.
    @Test func plainProxyRequestsReachTheHandlerAsSent() async throws {
        let fixture = try Fixture(allowed: ["api.example.test"])
        let outcome = try await ChildProcess.output(
            Tool.path("curl")!, ["-sS", "--proxy", fixture.proxyURL, "http://api.example.test/path?q=1"])
        #expect(outcome.output.contains(#""url":"http://api.example.test/path?q=1""#), "\(outcome.output)")
        // HTTPS is only spoken inside a tunnel: an https:// target in plain text is refused by the server.
        let client = try RawClient(port: fixture.proxy.boundPort)
        client.send("GET https://api.example.test/ HTTP/1.1\r\nHost: api.example.test\r\n\r\n")
        let answer = client.read(until: "}")
        #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
        #expect(answer.contains("open it with CONNECT"), "\(answer)")
    }

    @Test func connectToAHostOrPortNotAllowedIsRefusedAndClosed() throws {
        let fixture = try Fixture()
        for (target, says) in [
            ("other.example.test:443", "the proxy opens only the hosts named with --allow-host"),
            ("localhost:9443", "localhost is allowed on port 8443 only"),
            ("localhost", "CONNECT needs HOST:PORT"),
        ] {
            let client = try RawClient(port: fixture.proxy.boundPort)
            client.send("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n")
            let answer = String(decoding: client.readAll(), as: UTF8.self)
            #expect(answer.hasPrefix(target.contains(":") ? "HTTP/1.1 403 " : "HTTP/1.1 400 "), "\(target): \(answer)")
            #expect(answer.contains(says), "\(target): \(answer)")
            #expect(answer.contains("Connection: close"))
        }
        #expect(fixture.proxy.refusedCount == 3)
    }

    /// Bytes that are no ClientHello after `200`: the handshake fails and the connection is closed.
    @Test func garbageInsteadOfAClientHelloIsClosed() throws {
        let fixture = try Fixture()
        let client = try RawClient(port: fixture.proxy.boundPort)
        client.send("CONNECT localhost:8443 HTTP/1.1\r\nHost: localhost:8443\r\n\r\n")
        #expect(client.read(until: "\r\n\r\n") == "HTTP/1.1 200 Connection Established\r\n\r\n")
        client.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let rest = client.readAll()
        // At most a TLS alert record (content type 21), never an HTTP answer.
        #expect(rest.isEmpty || rest.first == 21, "\(rest)")
        #expect(fixture.failedHandshakes(reaching: 1) == 1)
    }

    /// A client that stops after `CONNECT` (no ClientHello), or in the middle of its head: both are closed by the
    /// head timeout, and the receive timeout of 20 s is never what ends the wait.
    @Test func stalledHandshakesAndHeadsAreClosed() throws {
        let fixture = try Fixture()
        let stalled = try RawClient(port: fixture.proxy.boundPort, receiveTimeoutSeconds: 20)
        stalled.send("CONNECT localhost:8443 HTTP/1.1\r\n\r\n")
        #expect(stalled.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 200 "))
        let halfHead = try RawClient(port: fixture.proxy.boundPort, receiveTimeoutSeconds: 20)
        halfHead.send("CONNECT localhost:8443 HTTP/1.1\r\nHost: loc")
        for client in [stalled, halfHead] {
            var byte: UInt8 = 0
            var count = recv(client.fd, &byte, 1, 0)
            while count < 0 && errno == EINTR { count = recv(client.fd, &byte, 1, 0) }
            // A close with the client's bytes unread arrives as a reset.
            #expect(
                count == 0 || errno == ECONNRESET, "closed by the proxy, not by the receive timeout (errno \(errno))")
        }
        #expect(fixture.failedHandshakes(reaching: 1) == 1)
    }

    /// An SNI name that is not the `CONNECT` host ends the handshake: a tunnel never stands for another host.
    @Test func anSNINameOtherThanTheConnectHostIsRefused() async throws {
        let fixture = try Fixture()
        let proxy = "127.0.0.1:\(fixture.proxy.boundPort)"
        let outcome = try await ChildProcess.output(
            "/bin/sh",
            [
                "-c",
                "printf 'GET / HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n' | openssl s_client -quiet -proxy \(proxy) "
                    + "-connect localhost:8443 -servername evil.example.test -CAfile \(fixture.caFile) 2>&1",
            ])
        #expect(outcome.output.contains("unrecognized name"), "\(outcome.output)")
        #expect(!outcome.output.contains("HTTP/1.1 200"))
        #expect(fixture.failedHandshakes(reaching: 1) == 1)
    }

    /// The tunnel's TLS is 1.2 or 1.3: a client that offers only TLS 1.1 gets no handshake.
    @Test func aClientOfferingOnlyTLS11GetsNoHandshake() async throws {
        let fixture = try Fixture()
        let proxy = "127.0.0.1:\(fixture.proxy.boundPort)"
        let outcome = try await ChildProcess.output(
            "/bin/sh",
            [
                "-c",
                "openssl s_client -proxy \(proxy) -connect localhost:8443 -servername localhost -tls1_1 "
                    + "-cipher DEFAULT@SECLEVEL=0 -CAfile \(fixture.caFile) </dev/null 2>&1",
            ])
        #expect(outcome.output.contains("Cipher is (NONE)"), "\(outcome.output)")
        #expect(outcome.output.contains("no peer certificate available"), "\(outcome.output)")
        #expect(fixture.failedHandshakes(reaching: 1) == 1)
    }

    /// An IP literal sends no SNI name: the tunnel gets the leaf made for that address, and it verifies.
    @Test func anIPLiteralGetsTheLeafOfItsAddress() async throws {
        let fixture = try Fixture(allowed: ["127.0.0.1:8443"])
        let proxy = "127.0.0.1:\(fixture.proxy.boundPort)"
        let outcome = try await ChildProcess.output(
            "/bin/sh",
            [
                "-c",
                "printf 'GET /ip HTTP/1.1\\r\\nHost: 127.0.0.1:8443\\r\\nConnection: close\\r\\n\\r\\n' | "
                    + "openssl s_client -quiet -proxy \(proxy) -connect 127.0.0.1:8443 -verify_return_error "
                    + "-CAfile \(fixture.caFile) 2>&1",
            ])
        #expect(outcome.output.contains("HTTP/1.1 200"), "\(outcome.output)")
        #expect(outcome.output.contains(#""url":"https://127.0.0.1:8443/ip""#), "\(outcome.output)")
        #expect(fixture.proxy.failedHandshakeCount == 0)
    }

    /// A `CONNECT` (or an absolute URL) inside a tunnel is answered 400, never followed.
    @Test func aSecondConnectInsideATunnelIsRefused() async throws {
        let fixture = try Fixture()
        let proxy = "127.0.0.1:\(fixture.proxy.boundPort)"
        for line in ["CONNECT other.example.test:443 HTTP/1.1", "GET https://other.example.test/ HTTP/1.1"] {
            let outcome = try await ChildProcess.output(
                "/bin/sh",
                [
                    "-c",
                    "(printf '\(line)\\r\\nHost: other.example.test:443\\r\\n\\r\\n'; sleep 2) | openssl s_client "
                        + "-quiet -proxy \(proxy) -connect localhost:8443 -servername localhost "
                        + "-verify_return_error -CAfile \(fixture.caFile) 2>&1",
                ])
            #expect(outcome.output.contains("HTTP/1.1 400"), "\(line): \(outcome.output)")
            #expect(outcome.output.contains("inside the tunnel to https://localhost:8443 is not origin-form"))
        }
    }

    /// `--other-hosts tunnel`: a CONNECT to another host reaches it undecrypted (here a plain-HTTP server the test
    /// runs on 127.0.0.2, which the proxy is told to judge as another machine, since a test reaches no other; it sees
    /// the bytes the client sent); the proxy's handler sees nothing.
    @Test func otherHostsAreTunnelledUndecryptedWhenAsked() async throws {
        let upstream = try HTTPServer(handler: EchoHandler(), host: "127.0.0.2")
        try upstream.start()
        defer { upstream.stop() }
        let fixture = try Fixture(otherHosts: .tunnel, tunnelPorts: [upstream.boundPort])
        fixture.proxy.elsewhereForTests.withLock { $0 = [[127, 0, 0, 2]] }
        let client = try RawClient(port: fixture.proxy.boundPort)
        client.send("CONNECT 127.0.0.2:\(upstream.boundPort) HTTP/1.1\r\n\r\n")
        #expect(client.read(until: "\r\n\r\n") == "HTTP/1.1 200 Connection Established\r\n\r\n")
        client.send("GET /through HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let answer = String(decoding: client.readAll(), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        #expect(answer.contains(#""url":"/through""#), "the upstream saw origin-form: \(answer)")
    }

    @Test func authoritiesAndPoliciesReadWhatTheUserWrote() {
        #expect(ForwardAuthority("API.Example.com.") == ForwardAuthority(host: "api.example.com"))
        #expect(ForwardAuthority("[::1]:8443") == ForwardAuthority(host: "::1", port: 8443))
        #expect(ForwardAuthority("10.0.2.2:80")?.description == "10.0.2.2:80")
        for bad in ["https://a.example", "a.example/path", "a.example:0", "a.example:70000", "a b", "[::1", ""] {
            #expect(ForwardAuthority(bad) == nil, "\(bad)")
        }
        let policy = ForwardPolicy(allowed: [ForwardAuthority("api.example.com")!, ForwardAuthority("dev.test:8080")!])
        #expect(policy.connect(host: "API.example.com", port: 443) == .intercept)
        #expect(policy.allowsPlain(host: "api.example.com", port: 80))
        #expect(!policy.allowsPlain(host: "api.example.com", port: 8080))
        #expect(policy.allowsTLS(host: "dev.test", port: 8080) && policy.allowsPlain(host: "dev.test", port: 8080))
        #expect(policy.connect(host: ForwardPolicy.eventsHost, port: 443) == .intercept)
        guard case .refuse = policy.connect(host: "elsewhere.test", port: 443) else {
            Issue.record("another host is refused by default")
            return
        }
    }
}
