import ConformCore
import ConformCrypto
import ConformCurl
import ConformTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `CurlTransport`'s TLS options against real TLS servers: `openssl s_server` asking for a client certificate, and
/// Hypercorn (PyPI) speaking HTTP/2 by ALPN.
@Suite struct CurlClientTLSTests {
    /// A CA, a server leaf for 127.0.0.1 and, signed by the same CA with `openssl`, a client certificate.
    final class Keys: Sendable {
        let scratch: Scratch
        init() async throws {
            scratch = try Scratch("clienttls")
            let ca = try CertificateAuthority.create()
            let leaf = try ca.issue(for: [ServerName("127.0.0.1")!])
            try ca.certificate.pem.write(toFile: path("ca.pem"), atomically: true, encoding: .utf8)
            try ca.key.pem.write(toFile: path("ca-key.pem"), atomically: true, encoding: .utf8)
            try leaf.certificate.pem.write(toFile: path("server.pem"), atomically: true, encoding: .utf8)
            try leaf.key.pem.write(toFile: path("server-key.pem"), atomically: true, encoding: .utf8)
            try "extendedKeyUsage=clientAuth\n".write(toFile: path("client.ext"), atomically: true, encoding: .utf8)
            let openssl = Tool.path("openssl")!
            for arguments in [
                [
                    "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                    path("client-key.pem"), "-out", path("client.csr"), "-subj", "/CN=conform test client",
                ],
                [
                    "x509", "-req", "-in", path("client.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca-key.pem"),
                    "-CAcreateserial", "-days", "1", "-extfile", path("client.ext"), "-out", path("client.pem"),
                ],
            ] {
                let outcome = try await ChildProcess.output(openssl, arguments)
                #expect(outcome.status == 0, "\(outcome.output)")
            }
        }
        func path(_ name: String) -> String { scratch.path(name) }
    }

    /// A server process whose port is read from the first output line matching `prefix` (`ACCEPT 127.0.0.1:`).
    final class Server: @unchecked Sendable {
        let process = SpawnedProcess()
        let port: UInt16
        private let exit: ProcessExit
        init(
            _ executable: String, _ arguments: [String], portAfter prefix: String, log: String, directory: URL? = nil
        ) throws {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            if let directory { process.currentDirectoryURL = directory }
            exit = try ProcessExit(starting: process)
            var found: UInt16?
            // Waits for the server to say where it listens (it starts in well under a second; 30 s at most).
            for _ in 0..<300 where found == nil {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if let range = text.range(of: prefix) {
                    found = UInt16(text[range.upperBound...].prefix { $0.isNumber })
                }
                if found == nil { usleep(100_000) }
            }
            if found == nil {  // the initializer throws below, and deinit does not run: the server is stopped here
                kill(process.processIdentifier, SIGKILL)
                exit.wait()
            }
            port = try #require(
                found, "the server printed no port: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        /// `openssl s_server` ignores SIGTERM: the server is killed, and reaped.
        deinit {
            kill(process.processIdentifier, SIGKILL)
            exit.wait()
        }
    }

    @Test(.enabled(if: Tool.has("openssl"), "needs openssl"))
    func aClientCertificateIsPresentedWhenTheServerAsksForOne() async throws {
        let keys = try await Keys()
        let server = try await offThePool {
            try Server(
                Tool.path("openssl")!,
                [
                    "s_server", "-accept", "127.0.0.1:0", "-cert", keys.path("server.pem"), "-key",
                    keys.path("server-key.pem"),
                    "-CAfile", keys.path("ca.pem"), "-Verify", "1", "-verify_return_error", "-www",
                ],
                portAfter: "ACCEPT 127.0.0.1:", log: keys.path("s_server.log"))
        }
        defer { withExtendedLifetime(server) {} }
        let url = "https://127.0.0.1:\(server.port)/"
        let withCertificate = CurlTransport(
            timeout: .seconds(20),
            tls: ClientTLS(
                caFile: keys.path("ca.pem"), certificateFile: keys.path("client.pem"),
                keyFile: keys.path("client-key.pem")))
        let response = try await withCertificate.send(HTTPRequest(method: .get, url: url))
        #expect(response.status == 200)
        // s_server -www describes the session, the client's certificate included.
        #expect(String(decoding: response.body, as: UTF8.self).contains("conform test client"))
        do {
            _ = try await CurlTransport(timeout: .seconds(20), tls: ClientTLS(caFile: keys.path("ca.pem"))).send(
                HTTPRequest(method: .get, url: url))
            Issue.record("a server that requires a client certificate answered without one")
        } catch let error as TransportError {
            #expect(error.kind == .tls || error.kind == .connectionReset, "\(error)")
        }
    }

    @Test(.enabled(if: Tool.has("openssl"), "needs openssl"))
    func anUnreadableClientKeyNamesTheOptions() async throws {
        let keys = try await Keys()
        let transport = CurlTransport(
            timeout: .seconds(20),
            tls: ClientTLS(
                caFile: keys.path("ca.pem"), certificateFile: keys.path("client.pem"), keyFile: keys.path("ca.pem")))
        let server = try await offThePool {
            try Server(
                Tool.path("openssl")!,
                [
                    "s_server", "-accept", "127.0.0.1:0", "-cert", keys.path("server.pem"), "-key",
                    keys.path("server-key.pem"),
                    "-www",
                ],
                portAfter: "ACCEPT 127.0.0.1:", log: keys.path("s_server.log"))
        }
        defer { withExtendedLifetime(server) {} }
        do {
            _ = try await transport.send(HTTPRequest(method: .get, url: "https://127.0.0.1:\(server.port)/"))
            Issue.record("a key that is no key was used")
        } catch let error as TransportError {
            #expect(error.kind == .tls)
            #expect(error.meansCannotRun)
            #expect(error.message.contains("--cert and --key"), "\(error.message)")
        }
    }

    static let hasHypercorn = Tool.has("hypercorn")

    @Test(.enabled(if: hasHypercorn && Tool.has("openssl"), "needs hypercorn (scripts/setup) and openssl"))
    func http2IsNegotiatedByALPNUnlessHTTP11IsAsked() async throws {
        let keys = try await Keys()
        let app = """
            async def app(scope, receive, send):
                if scope["type"] != "http":
                    return
                await send({"type": "http.response.start", "status": 200, "headers": [(b"x-spoken", scope["http_version"].encode())]})
                await send({"type": "http.response.body", "body": b"ok"})
            """
        try app.write(toFile: keys.path("h2app.py"), atomically: true, encoding: .utf8)
        let server = try await offThePool {
            try Server(
                Tool.path("hypercorn")!,
                [
                    "--certfile", keys.path("server.pem"), "--keyfile", keys.path("server-key.pem"), "-b",
                    "127.0.0.1:0",
                    "h2app:app",
                ],
                portAfter: "Running on https://127.0.0.1:", log: keys.path("hypercorn.log"), directory: keys.scratch.url
            )
        }
        defer { withExtendedLifetime(server) {} }
        let url = "https://127.0.0.1:\(server.port)/"
        let h2 = try await CurlTransport(timeout: .seconds(20), tls: ClientTLS(caFile: keys.path("ca.pem"))).send(
            HTTPRequest(method: .get, url: url))
        #expect(h2.httpVersion == "HTTP/2")
        #expect(h2.headerFields["X-Spoken"] == "2")
        #expect(h2.body == Data("ok".utf8))
        let h1 = try await CurlTransport(
            timeout: .seconds(20), tls: ClientTLS(caFile: keys.path("ca.pem"), http2: false)
        ).send(HTTPRequest(method: .get, url: url))
        #expect(h1.httpVersion == "HTTP/1.1")
        #expect(h1.headerFields["X-Spoken"] == "1.1")
    }

    @Test func theEnvironmentNamesTheCAFileAsCurlReadsIt() {
        #expect(ClientTLS.caFile(fromEnvironment: ["SSL_CERT_FILE": "/a", "CURL_CA_BUNDLE": "/b"]) == "/b")
        #expect(ClientTLS.caFile(fromEnvironment: ["SSL_CERT_FILE": "/a"]) == "/a")
        #expect(ClientTLS.caFile(fromEnvironment: ["CURL_CA_BUNDLE": ""]) == nil)
    }
}
