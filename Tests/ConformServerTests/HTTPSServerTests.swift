import ConformCore
import ConformCrypto
import ConformCurl
import ConformServer
import ConformTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `HTTPServer` over HTTPS with a leaf from a local CA, reached by real clients that trust the CA.
@Suite(.enabled(if: Tool.has("curl") && Tool.has("openssl"), "needs curl and openssl"))
struct HTTPSServerTests {
    /// A CA written to a scratch directory and a started HTTPS server with a leaf for 127.0.0.1 and localhost.
    final class Fixture: Sendable {
        let scratch: Scratch
        let authority: CertificateAuthority
        let server: HTTPServer
        var caFile: String { scratch.path("ca.pem") }

        init(limits: HTTPServerLimits = .default) throws {
            scratch = try Scratch("https")
            authority = try CertificateAuthority.create()
            try authority.certificate.pem.write(toFile: scratch.path("ca.pem"), atomically: true, encoding: .utf8)
            let leaf = try authority.issue(for: ["127.0.0.1", "localhost"].compactMap(ServerName.init))
            server = try HTTPServer(
                handler: EchoHandler(), limits: limits,
                tls: TLSIdentity(keyPEM: leaf.key.pem, certificatePEM: leaf.certificate.pem))
            try server.start()
        }

        deinit { server.stop() }
    }

    @Test func curlTrustsTheListenerThroughTheCAAndRefusesItWithout() async throws {
        let fixture = try Fixture()
        let url = fixture.server.baseURL + "/hello?x=1"
        #expect(url.hasPrefix("https://127.0.0.1:"))
        let curl = Tool.path("curl")!
        let trusted = try await ChildProcess.output(
            curl, ["-sS", "--cacert", fixture.caFile, "-w", "\n%{http_version} %{ssl_verify_result}", url])
        #expect(trusted.status == 0, "\(trusted.output)")
        #expect(trusted.output.hasSuffix("\n1.1 0"), "\(trusted.output)")
        #expect(trusted.output.contains("\"url\":\"/hello?x=1\""))
        let byName = try await ChildProcess.output(
            curl,
            [
                "-sS", "--cacert", fixture.caFile, "--resolve", "localhost:\(fixture.server.boundPort):127.0.0.1",
                "https://localhost:\(fixture.server.boundPort)/",
            ])
        #expect(byName.status == 0, "\(byName.output)")
        let untrusted = try await ChildProcess.output(curl, ["-sS", url])
        #expect(untrusted.status == 60, "\(untrusted.output)")
    }

    @Test func alpnOffersHTTP11() async throws {
        let fixture = try Fixture()
        let outcome = try await ChildProcess.output(
            Tool.path("openssl")!,
            [
                "s_client", "-connect", "127.0.0.1:\(fixture.server.boundPort)", "-alpn", "h2,http/1.1",
                "-CAfile", fixture.caFile, "-verify_return_error",
            ])
        #expect(outcome.output.contains("ALPN protocol: http/1.1"), "\(outcome.output)")
        #expect(outcome.output.contains("Verification: OK"), "\(outcome.output)")
    }

    @Test func curlTransportTrustsTheCAFileAndReportsHTTP11() async throws {
        let fixture = try Fixture()
        let transport = CurlTransport(timeout: .seconds(20), tls: ClientTLS(caFile: fixture.caFile))
        let response = try await transport.send(HTTPRequest(method: .get, url: fixture.server.baseURL + "/x"))
        #expect(response.status == 200)
        #expect(response.httpVersion == "HTTP/1.1")
        #expect(try EchoedRequest(response).url == "/x")
        do {
            _ = try await CurlTransport(timeout: .seconds(20)).send(
                HTTPRequest(method: .get, url: fixture.server.baseURL + "/x"))
            Issue.record("an untrusted CA was accepted")
        } catch let error as TransportError {
            #expect(error.kind == .tls)
            #expect(error.meansCannotRun)
            // The fix is told once per run (the notice), the message of each exchange refers to it.
            #expect(error.message.contains("not trusted (see the TLS warning below the steps)"), "\(error.message)")
            #expect(error.notice?.contains("--cacert FILE") == true, "\(error.notice ?? "")")
            #expect(error.notice?.contains("--insecure") == true, "\(error.notice ?? "")")
        }
    }

    /// `CurlTransport` reads its trust file once, not again for every connection: a trust store of 140
    /// certificates (about what the system's holds) cost its one thread about 25 ms a new connection, and the
    /// bundled plan timed out behind it. Once the first connection has read the file, the file is made to trust
    /// another CA only: a transport that read it again for its next connection would refuse the listener.
    @Test func curlTransportReadsABigTrustFileOnce() async throws {
        let fixture = try Fixture()
        let store = fixture.scratch.path("store.pem")
        var certificates = try (0..<139).map { _ in try CertificateAuthority.create().certificate.pem }
        certificates.append(fixture.authority.certificate.pem)
        try certificates.joined().write(toFile: store, atomically: true, encoding: .utf8)
        let transport = CurlTransport(timeout: .seconds(20), tls: ClientTLS(caFile: store))
        func send(_ path: String) async throws -> HTTPResponse {
            // `Connection: close`: each exchange on a connection (and a handshake) of its own.
            try await transport.send(
                HTTPRequest(method: .get, url: fixture.server.baseURL + path, headerFields: ["Connection": "close"]))
        }
        #expect(try await send("/first").status == 200)
        try CertificateAuthority.create().certificate.pem.write(toFile: store, atomically: true, encoding: .utf8)
        let second = try await send("/second")
        #expect(second.status == 200)
        #expect(try EchoedRequest(second).url == "/second")
    }

    @Test(.enabled(if: Tool.has("python3"), "needs python3"))
    func pythonRequestsVerifiesAgainstTheCA() async throws {
        let fixture = try Fixture()
        let script = """
            import sys, requests
            r = requests.post(sys.argv[1] + '/echo', data=b'payload', verify=sys.argv[2], timeout=20)
            print(r.status_code, r.content.decode())
            try:
                requests.get(sys.argv[1] + '/', timeout=20)
                print('accepted without the CA')
            except requests.exceptions.SSLError:
                print('refused without the CA')
            """
        let outcome = try await ChildProcess.output(
            Tool.path("python3")!, ["-c", script, fixture.server.baseURL, fixture.caFile],
            environment: ProcessInfo.processInfo.environment.filter {
                !["REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE"].contains($0.key)
            })
        #expect(outcome.output == "200 payload\nrefused without the CA\n", "\(outcome.output)")
    }

    /// TLS 1.2 and 1.3 only (RFC 8996): a client offering only TLS 1.0 or 1.1 (with OpenSSL's security level lowered
    /// so that it offers them at all) gets no handshake; TLS 1.2 and 1.3 complete.
    @Test func onlyTLS12And13AreSpoken() async throws {
        let fixture = try Fixture()
        for (option, spoken) in [("-tls1", nil), ("-tls1_1", nil), ("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")] {
            let outcome = try await ChildProcess.output(
                Tool.path("openssl")!,
                [
                    "s_client", "-connect", "127.0.0.1:\(fixture.server.boundPort)", option, "-cipher",
                    "DEFAULT:@SECLEVEL=0", "-CAfile", fixture.caFile,
                ])
            if let spoken {
                #expect(outcome.status == 0, "\(option): \(outcome.output)")
                #expect(outcome.output.contains("New, \(spoken), Cipher is "), "\(option): \(outcome.output)")
            } else {
                #expect(outcome.status == 1, "\(option): \(outcome.output)")
                #expect(outcome.output.contains("New, (NONE), Cipher is (NONE)"), "\(option): \(outcome.output)")
            }
        }
    }

    /// Bytes that are no ClientHello end the connection at once; a client that never sends one is cut by the
    /// head timeout like any slow client.
    @Test func garbageAndStalledHandshakesAreClosed() async throws {
        let fixture = try Fixture(limits: HTTPServerLimits(headerTimeoutSeconds: 1, requestTimeoutSeconds: 2))
        // Blocking reads: on a thread of their own, never one of the threads every test shares.
        try await offThePool {
            let garbage = try RawClient(port: fixture.server.boundPort, receiveTimeoutSeconds: 30)
            garbage.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(Self.readsToClose(garbage), "a plain-HTTP request on the TLS port was not closed")
            let stalled = try RawClient(port: fixture.server.boundPort, receiveTimeoutSeconds: 30)
            #expect(Self.readsToClose(stalled), "a client that never sent a ClientHello was not cut")
            #expect(fixture.server.slowHeadDisconnects == 1)
            // The listener still serves.
            let client = try RawClient(port: fixture.server.boundPort, receiveTimeoutSeconds: 30)
            #expect(client.send([0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x00]))
            #expect(Self.readsToClose(client), "a truncated ClientHello was not closed")

        }
    }

    /// Reads until the peer closes (`true`) or the receive timeout passes (`false`).
    static func readsToClose(_ client: RawClient) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(client.fd, &buffer, buffer.count, 0)
            if count > 0 { continue }
            if count == 0 { return true }
            return errno != EAGAIN && errno != EWOULDBLOCK
        }
    }
}
