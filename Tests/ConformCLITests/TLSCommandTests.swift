import ConformCLI
import ConformCore
import ConformCrypto
import ConformCurl
import ConformReport
import ConformTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `conform ca`, HTTPS listeners (`serve`, `record` with `--tls`) and the client TLS options, with the built binary
/// and real clients; each test keeps its CA in its own configuration directory.
@Suite(.enabled(if: Tool.has("curl"), "needs curl"))
struct TLSCommandTests {
    /// `conform ARGS` in process with `environment` as the whole environment.
    func conform(_ args: [String], environment: [String: String]) async -> (code: Int32, out: String, err: String) {
        let out = MemorySink()
        let err = MemorySink()
        let io = CommandIO(
            out: out, err: err, color: false, environment: environment, currentDirectory: TestPaths.root.path)
        let code = await ConformCommand.main(["conform"] + args, io: io)
        return (code, out.text, err.text)
    }

    /// The environment of a child whose CA lives under `scratch`, with no CA file inherited.
    static func environment(_ scratch: Scratch) -> [String: String] {
        ["XDG_CONFIG_HOME": scratch.path("config"), "CURL_CA_BUNDLE": "", "SSL_CERT_FILE": ""]
    }

    /// `conform serve --tls --port 0` with its CA under `scratch`.
    static func serveTLS(_ scratch: Scratch) async throws -> ConformProcess {
        try await offThePool {
            try ConformProcess(
                ["serve", "--tls", "--port", "0"], scratch: scratch,
                banner: "Serving the reference implementation on ", environment: environment(scratch))
        }
    }

    @Test func caIsMadeOnceShownAndExportedWithAPrivateKey() async throws {
        let scratch = try Scratch("cacommand")
        let env = ["XDG_CONFIG_HOME": scratch.path("config")]
        let first = await conform(["ca"], environment: env)
        #expect(first.code == 0, "\(first.out)\(first.err)")
        let directory = scratch.path("config/conform/ca")
        #expect(first.out.hasPrefix("Local CA: \(directory) (created)\n"), "\(first.out)")
        #expect(!first.out.contains("PRIVATE KEY"))
        var info = stat()
        #expect(stat(directory + "/ca-key.pem", &info) == 0 && info.st_mode & 0o777 == 0o600)
        let fingerprint = try #require(
            first.out.split(separator: "\n").first { $0.hasPrefix("SHA-256 fingerprint: ") })
        for name in ["conform-ca.pem", "conform-ca.cer", "conform-ca.mobileconfig"] {
            #expect(first.out.contains("\(directory)/\(name)\n"), "\(name)")
        }
        let second = await conform(["ca"], environment: env)
        #expect(second.out.hasPrefix("Local CA: \(directory) (existing)\n"))
        #expect(second.out.contains(fingerprint))
        let exported = await conform(["ca", "--out", scratch.path("exports")], environment: env)
        #expect(exported.code == 0)
        #expect(FileManager.default.fileExists(atPath: scratch.path("exports/conform-ca.cer")))
        let reset = await conform(["ca", "--reset"], environment: env)
        #expect(reset.code == 0)
        #expect(reset.out.contains("(new; devices and clients that trusted the old one must trust this one)"))
        #expect(!reset.out.contains(fingerprint))
        let nowhere = await conform(["ca"], environment: [:])
        #expect(nowhere.code == 2)
        #expect(nowhere.err.contains("neither XDG_CONFIG_HOME nor HOME is an absolute path"), "\(nowhere.err)")
    }

    /// The bundled suites conform against `conform serve --tls` through `--cacert`; without it the run cannot
    /// run and says which options would make it.
    @Test func theBundledSuitesConformOverHTTPSThroughCacert() async throws {
        let scratch = try Scratch("servetls")
        let served = try await Self.serveTLS(scratch)
        #expect(served.baseURL.hasPrefix("https://127.0.0.1:"))
        let ca = scratch.path("config/conform/ca/ca-cert.pem")
        let run = await conform(["run", "--target", served.baseURL, "--cacert", ca], environment: [:])
        #expect(run.code == 0, "\(run.out.suffix(2000))\(run.err)")
        #expect(run.out.hasSuffix("Result: CONFORMS\n"))
        let report = scratch.path("report.json")
        let fromEnvironment = await conform(
            ["run", "suites/01-registration.yaml", "--target", served.baseURL, "--report", "json:" + report],
            environment: ["SSL_CERT_FILE": ca])
        #expect(fromEnvironment.code == 0, "SSL_CERT_FILE is honoured: \(fromEnvironment.out.suffix(500))")
        // The report says which HTTP version each exchange was spoken in.
        let json = try String(contentsOfFile: report, encoding: .utf8)
        #expect(json.contains(#""httpVersion": "HTTP/1.1""#) || json.contains(#""httpVersion":"HTTP/1.1""#))
        let untrusted = await conform(
            ["run", "suites/01-registration.yaml", "--target", served.baseURL], environment: [:])
        #expect(untrusted.code == 2, "\(untrusted.out.suffix(1000))")
        #expect(untrusted.out.contains("TLS failure: "))
        #expect(untrusted.out.contains("give the CA that signed it with --cacert FILE"))
        #expect(untrusted.out.contains("--insecure"))
        #expect(untrusted.out.hasSuffix("Result: COULD NOT RUN\n"))
        // M12 announces the scheme the reference was reached by.
        let baseURL = try await CurlTransport(timeout: .seconds(20), tls: ClientTLS(caFile: ca)).send(
            HTTPRequest(
                method: .get, url: served.baseURL + "/mobile/1/baseurl",
                headerFields: ["Authorization": "App conform-app-code"]))
        #expect(try JSONValue.parse(baseURL.body)["baseUrl"]?.stringValue == served.baseURL)
        _ = try await offThePool { try served.interrupt() }
    }

    /// Java's `HttpURLConnection` (what Android's own client is built on) with a truststore holding the local CA.
    @Test(.enabled(if: Tool.has("java") && Tool.has("keytool"), "needs OpenJDK"))
    func javaTrustsTheListenerThroughATruststore() async throws {
        let scratch = try Scratch("javatls")
        let served = try await Self.serveTLS(scratch)
        let store = scratch.path("truststore.p12")
        let imported = try await ChildProcess.output(
            Tool.path("keytool")!,
            [
                "-importcert", "-noprompt", "-alias", "conform", "-storetype", "PKCS12", "-storepass", "changeit",
                "-keystore", store, "-file", scratch.path("config/conform/ca/ca-cert.pem"),
            ])
        #expect(imported.status == 0, "\(imported.output)")
        let client = """
            import java.net.*; import java.io.*;
            public class Client {
                public static void main(String[] args) throws Exception {
                    HttpURLConnection c = (HttpURLConnection) new URL(args[0] + "/mobile/1/baseurl").openConnection();
                    c.setRequestProperty("Authorization", "App conform-app-code");
                    try (InputStream in = c.getInputStream()) {
                        System.out.println(c.getResponseCode() + " " + new String(in.readAllBytes(), "UTF-8"));
                    }
                }
            }
            """
        try client.write(toFile: scratch.path("Client.java"), atomically: true, encoding: .utf8)
        let trusted = try await ChildProcess.output(
            Tool.path("java")!,
            [
                "-Djavax.net.ssl.trustStore=\(store)", "-Djavax.net.ssl.trustStorePassword=changeit",
                scratch.path("Client.java"), served.baseURL,
            ])
        #expect(trusted.output == "200 {\"baseUrl\":\"\(served.baseURL)\"}\n", "\(trusted.output)")
        let untrusted = try await ChildProcess.output(
            Tool.path("java")!, [scratch.path("Client.java"), served.baseURL])
        #expect(untrusted.status != 0)
        #expect(untrusted.output.contains("SSLHandshakeException"), "\(untrusted.output.prefix(400))")
        _ = try await offThePool { try served.interrupt() }
    }

    @Test func serveListensOverHTTPSAndHTTPOnTwoPorts() async throws {
        let scratch = try Scratch("twoports")
        let served = try await offThePool {
            try ConformProcess(
                ["serve", "--tls-port", "0", "--port", "0", "--public-url", "https://api.example.test"],
                scratch: scratch, banner: "Serving the reference implementation on ",
                environment: Self.environment(scratch))
        }
        let text = try String(contentsOfFile: served.stdout, encoding: .utf8)
        let plainLine = try #require(text.split(separator: "\n").first { $0.hasPrefix("Also plain HTTP on http://") })
        let plain = String(plainLine.dropFirst("Also plain HTTP on ".count))
        let curl = Tool.path("curl")!
        for base in [plain, served.baseURL] {
            let outcome = try await ChildProcess.output(
                curl,
                [
                    "-sS", "--cacert", scratch.path("config/conform/ca/ca-cert.pem"), "-H",
                    "Authorization: App conform-app-code", base + "/mobile/1/baseurl",
                ])
            #expect(outcome.output == #"{"baseUrl":"https://api.example.test"}"#, "\(base): \(outcome.output)")
        }
        _ = try await offThePool { try served.interrupt() }
    }

    /// `record --tls` in front of `serve --tls`: a client that trusts the CA records through HTTPS, and the
    /// recording and its HAR say which HTTP version the upstream spoke.
    @Test func recordOverHTTPSToAnHTTPSUpstream() async throws {
        let scratch = try Scratch("recordtls")
        let env = Self.environment(scratch)
        let ca = scratch.path("config/conform/ca/ca-cert.pem")
        let upstream = try await Self.serveTLS(scratch)
        let out = scratch.path("recorded")
        let recorder = try await offThePool {
            try ConformProcess(
                ["record", "--tls", "--upstream", upstream.baseURL, "--cacert", ca, "--out", out, "--http1.1"],
                scratch: scratch, banner: "Recording on ", environment: env)
        }
        #expect(recorder.baseURL.hasPrefix("https://"))
        let curl = Tool.path("curl")!
        let register = try await ChildProcess.output(
            curl,
            [
                "-sS", "--cacert", ca, "-X", "POST", "-H", "Authorization: App conform-app-code", "-H",
                "Content-Type: application/json", "--data", #"{"pushServiceToken":"tls-token","platformType":"GCM"}"#,
                recorder.baseURL + "/mobile/1/appinstance?ri=true",
            ])
        #expect(register.output.contains(#""pushRegId":"#), "\(register.output)")
        let result = try await offThePool { try recorder.interrupt() }
        #expect(result.code == 0, "\(result.out)\(result.err)")
        #expect(result.out.contains("TLS: certificate for 127.0.0.1, localhost, ::1 from the local CA"))
        let line = try String(contentsOfFile: out + "/exchanges.jsonl", encoding: .utf8)
        #expect(line.contains(#""status":201"#) || line.contains(#""status":200"#), "\(line)")
        // HTTP/1.1, which a recording line means when it names no version; the HAR says it.
        #expect(!line.contains("httpVersion"))
        let har = await conform(["export", out], environment: [:])
        #expect(har.out.contains(#""httpVersion":"HTTP/1.1""#))
        _ = try await offThePool { try upstream.interrupt() }
    }

    /// An upstream that speaks HTTP/2 (Hypercorn): the recording and its HAR name the version curl negotiated by
    /// ALPN, and `--http1.1` keeps to HTTP/1.1.
    @Test(.enabled(if: Tool.has("hypercorn"), "needs hypercorn (scripts/setup)"))
    func theRecordingNamesHTTP2WhenTheUpstreamSpeaksIt() async throws {
        let scratch = try Scratch("recordh2")
        let authority = try CertificateAuthority.create()
        let leaf = try authority.issue(for: [ServerName("127.0.0.1")!])
        try authority.certificate.pem.write(toFile: scratch.path("ca.pem"), atomically: true, encoding: .utf8)
        try leaf.certificate.pem.write(toFile: scratch.path("leaf.pem"), atomically: true, encoding: .utf8)
        try leaf.key.pem.write(toFile: scratch.path("leaf-key.pem"), atomically: true, encoding: .utf8)
        let app = """
            async def app(scope, receive, send):
                if scope["type"] != "http":
                    return
                body = ('{"spoken":"%s"}' % scope["http_version"]).encode()
                await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": body})
            """
        try app.write(toFile: scratch.path("upstream.py"), atomically: true, encoding: .utf8)
        let log = scratch.path("hypercorn.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let upstream = SpawnedProcess()
        upstream.executableURL = URL(fileURLWithPath: Tool.path("hypercorn")!)
        upstream.arguments = [
            "--certfile", scratch.path("leaf.pem"), "--keyfile", scratch.path("leaf-key.pem"), "-b", "127.0.0.1:0",
            "upstream:app",
        ]
        upstream.currentDirectoryURL = scratch.url
        upstream.standardOutput = FileHandle(forWritingAtPath: log)
        upstream.standardError = FileHandle(forWritingAtPath: log)
        let upstreamExit = try ProcessExit(starting: upstream)
        defer {
            upstream.terminate()
            upstreamExit.wait()
        }
        // Waits for Hypercorn to say where it listens (a bound on start-up, not a timing assertion), off the pool.
        let port = try await offThePool {
            var port = ""
            for _ in 0..<300 where port.isEmpty {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if let range = text.range(of: "Running on https://127.0.0.1:") {
                    port = String(text[range.upperBound...].prefix { $0.isNumber })
                } else {
                    usleep(100_000)
                }
            }
            return port
        }
        let upstreamURL = "https://127.0.0.1:\(port)"
        try #require(
            !port.isEmpty, "hypercorn did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        for (extra, version) in [([String](), "HTTP/2"), (["--http1.1"], "HTTP/1.1")] {
            let out = scratch.path("recorded-\(version.count)")
            let recorder = try await offThePool {
                try ConformProcess(
                    ["record", "--upstream", upstreamURL, "--cacert", scratch.path("ca.pem"), "--out", out]
                        + extra, scratch: scratch, banner: "Recording on ", environment: Self.environment(scratch))
            }
            let fetched = try await ChildProcess.output(Tool.path("curl")!, ["-sS", recorder.baseURL + "/mobile/1/x"])
            #expect(fetched.output == (version == "HTTP/2" ? #"{"spoken":"2"}"# : #"{"spoken":"1.1"}"#))
            let result = try await offThePool { try recorder.interrupt() }
            #expect(result.code == 0, "\(result.out)\(result.err)")
            let line = try String(contentsOfFile: out + "/exchanges.jsonl", encoding: .utf8)
            #expect(line.contains(#""httpVersion":"HTTP/2""#) == (version == "HTTP/2"), "\(line)")
            let har = await conform(["export", out], environment: [:])
            #expect(har.out.contains(#""httpVersion":"\#(version)""#), "\(har.out.prefix(600))")
        }
    }

    @Test func mockListensOverHTTPS() async throws {
        let scratch = try Scratch("mocktls")
        let mock = try await offThePool {
            try ConformProcess(
                ["mock", "suites/01-registration.yaml", "--tls", "--port", "0"], scratch: scratch, banner: "Mocking ",
                environment: Self.environment(scratch))
        }
        #expect(mock.baseURL.hasPrefix("https://127.0.0.1:"))
        let answered = try await ChildProcess.output(
            Tool.path("curl")!,
            [
                "-sS", "-o", "/dev/null", "-w", "%{http_code} %{ssl_verify_result}", "--cacert",
                scratch.path("config/conform/ca/ca-cert.pem"), mock.baseURL + "/mobile/1/appinstance/x/user",
            ])
        #expect(answered.status == 0, "\(answered.output)")
        #expect(answered.output.hasSuffix(" 0"), "verified: \(answered.output)")
        _ = try await offThePool { try mock.interrupt() }
    }

    @Test func tlsOptionMistakesAreUsageErrorsOrNameTheFile() async throws {
        let scratch = try Scratch("tlsusage")
        let env = ["XDG_CONFIG_HOME": scratch.path("config")]
        let half = await conform(["serve", "--tls-cert", "c.pem"], environment: env)
        #expect(half.code == 64)
        #expect(half.err.hasPrefix("Error: --tls-cert and --tls-key go together\n"))
        let badName = await conform(["serve", "--tls", "--tls-name", "a,DNS:evil.example"], environment: env)
        #expect(badName.code == 64)
        #expect(badName.err.hasPrefix("Error: --tls-name 'a,DNS:evil.example' is not a DNS name or an IP address\n"))
        let path = await conform(["serve", "--public-url", "https://front.example/base"], environment: env)
        #expect(path.code == 64)
        #expect(path.err.contains("has a path; give the origin only"))
        // A key that is not the certificate's.
        _ = await conform(["ca", "--out", scratch.path("x")], environment: env)
        let mismatched = await conform(
            [
                "serve", "--tls-cert", scratch.path("config/conform/ca/ca-cert.pem"), "--tls-key",
                scratch.path("other-key.pem"),
            ], environment: env)
        #expect(mismatched.code == 2)
        #expect(mismatched.err.contains("other-key.pem: error: cannot read the file"), "\(mismatched.err)")
        // An encrypted key is named as the --tls-key file's problem, with the command that writes a plain copy; in
        // the PKCS#8 form and in the traditional one (Proc-Type: 4,ENCRYPTED).
        let plainKey = scratch.path("config/conform/ca/ca-key.pem")
        let forms = [("encrypted-pkcs8.pem", ["pkey", "-aes256"]), ("encrypted-ec.pem", ["ec", "-aes256"])]
        for (name, form) in Tool.has("openssl") ? forms : [] {
            let written = try await ChildProcess.output(
                Tool.path("openssl")!,
                form + ["-in", plainKey, "-passout", "pass:secret", "-out", scratch.path(name)])
            #expect(written.status == 0, "\(written.output)")
            let encrypted = await conform(
                [
                    "serve", "--tls-cert", scratch.path("config/conform/ca/ca-cert.pem"), "--tls-key",
                    scratch.path(name),
                ],
                environment: env)
            #expect(encrypted.code == 2)
            #expect(
                encrypted.err.contains("\(name): error: the private key is encrypted (a passphrase protects it)"),
                "\(encrypted.err)")
            #expect(!encrypted.err.contains("ca-cert.pem: error"), "\(encrypted.err)")
            #expect(
                encrypted.err.contains("openssl pkey -in \(scratch.path(name)) -out plain-key.pem"), "\(encrypted.err)")
        }
        let key = await conform(["run", "--key", "k.pem"], environment: env)
        #expect(key.code == 64)
        #expect(key.err.hasPrefix("Error: --key is the key of a --cert client certificate; add --cert FILE\n"))
    }
}
