import ConformCLI
import ConformCore
import ConformReport
import ConformServer
import ConformTestSupport
import Foundation
import Testing

/// A certificate refused for each of its three causes is told once per run, with the fix for that cause and the
/// number of steps it stopped; each step refers to it in a few words. Certificates are made by `openssl` here.
@Suite(.enabled(if: Tool.has("openssl"), "needs openssl"))
struct TLSCauseCommandTests {
    struct OK: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse { .json(200, ["ok": true]) }
    }

    /// Three flows, one step each: three steps the same TLS failure stops.
    static let suite = """
        suite: tls
        title: three flows over TLS
        flows:
          one:
            - name: ask
              request: {url: "{{ mobile }}/ok"}
          two:
            - name: ask
              request: {url: "{{ mobile }}/ok"}
          three:
            - name: ask
              request: {url: "{{ mobile }}/ok"}
        """

    /// `openssl ARGS` in `scratch`, which must succeed.
    static func openssl(_ arguments: [String], in scratch: Scratch) async throws {
        let outcome = try await ChildProcess.output(Tool.path("openssl")!, arguments, directory: scratch.url)
        #expect(outcome.status == 0, "openssl \(arguments.joined(separator: " ")): \(outcome.output)")
    }

    /// A CA (`ca.pem`), another CA (`other-ca.pem`) and, signed by the first, an expired certificate for
    /// 127.0.0.1, one for other names, and a valid one for 127.0.0.1, all with the key `leaf.key`.
    static func certificates(_ scratch: Scratch) async throws {
        for ca in ["ca", "other-ca"] {
            try await openssl(
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(ca).key", "-out", "\(ca).pem",
                    "-subj", "/CN=\(ca)", "-days", "2",
                ], in: scratch)
        }
        try await openssl(
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=leaf"],
            in: scratch)
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: scratch.path("ip.ext"), atomically: true, encoding: .utf8)
        try "subjectAltName=DNS:other.example,DNS:www.other.example\n".write(
            toFile: scratch.path("names.ext"), atomically: true, encoding: .utf8)
        for (name, days, ext) in [
            ("expired", "-1", "ip.ext"), ("wrong-name", "2", "names.ext"), ("good", "2", "ip.ext"),
        ] {
            try await openssl(
                [
                    "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                    "\(name).pem", "-days", days, "-extfile", ext,
                ], in: scratch)
        }
    }

    func conform(_ args: [String], environment: [String: String] = [:]) async -> (code: Int32, out: String, err: String)
    {
        let out = MemorySink()
        let err = MemorySink()
        let io = CommandIO(
            out: out, err: err, color: false, environment: environment, currentDirectory: TestPaths.root.path)
        let code = await ConformCommand.main(["conform"] + args, io: io)
        return (code, out.text, err.text)
    }

    /// Serves `certificate` (a file in `scratch`) over HTTPS until `body` returns.
    func serving<T>(_ certificate: String, in scratch: Scratch, _ body: (String) async throws -> T) async throws -> T {
        let identity = TLSIdentity(
            keyPEM: try String(contentsOfFile: scratch.path("leaf.key"), encoding: .utf8),
            certificatePEM: try String(contentsOfFile: scratch.path(certificate), encoding: .utf8))
        let server = try HTTPServer(handler: OK(), tls: identity)
        try server.start()
        defer { server.stop() }
        return try await body(server.baseURL)
    }

    /// The lines of `text` that start with `prefix`.
    func lines(_ text: String, starting prefix: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix(prefix) }
    }

    @Test func eachCauseIsToldOnceWithItsFixAndTheStepsItStopped() async throws {
        let scratch = try Scratch("tlscauses")
        try await Self.certificates(scratch)
        let suite = scratch.path("tls.yaml")
        try Self.suite.write(toFile: suite, atomically: true, encoding: .utf8)
        let ca = scratch.path("ca.pem")
        let other = scratch.path("other-ca.pem")

        let expired = try await serving("expired.pem", in: scratch) { base in
            await conform(["run", suite, "--target", base, "--cacert", ca])
        }
        #expect(expired.code == 2, "\(expired.out)")
        let expiredNotice = lines(expired.out, starting: "warning: TLS:")
        #expect(expiredNotice.count == 1, "\(expired.out)")
        #expect(expiredNotice.first?.contains(" expired on ") == true, "\(expired.out)")
        #expect(expiredNotice.first?.contains(": renew it (trusting another CA will not help") == true)
        #expect(expiredNotice.first?.hasSuffix(" (3 steps)") == true)
        #expect(
            expired.out.components(separatedBy: "the server's certificate has expired (see the TLS warning").count == 4)
        #expect(!expired.out.contains("trust its CA"))

        let untrusted = try await serving("good.pem", in: scratch) { base in
            await conform(["run", suite, "--target", base], environment: ["SSL_CERT_FILE": other])
        }
        #expect(untrusted.code == 2, "\(untrusted.out)")
        let untrustedNotice = lines(untrusted.out, starting: "warning: TLS:")
        #expect(untrustedNotice.count == 1, "\(untrusted.out)")
        #expect(
            untrustedNotice.first?.contains(
                "is not signed by a CA in use: the CA in use is '\(other)' (from SSL_CERT_FILE)")
                == true, "\(untrusted.out)")
        #expect(untrustedNotice.first?.hasSuffix(" (3 steps)") == true)

        let misnamed = try await serving("wrong-name.pem", in: scratch) { base in
            await conform(["run", suite, "--target", base, "--cacert", ca])
        }
        #expect(misnamed.code == 2, "\(misnamed.out)")
        let misnamedNotice = lines(misnamed.out, starting: "warning: TLS:")
        #expect(misnamedNotice.count == 1, "\(misnamed.out)")
        #expect(
            misnamedNotice.first?.contains("is for other.example, www.other.example, not 127.0.0.1: reach it by one")
                == true, "\(misnamed.out)")

        // replay says it once too, over every exchange it stopped; the JSON, JUnit and HTML reports carry it.
        let trace = scratch.path("trace.jsonl")
        try String(repeating: GatewayRetryCommandTests.recording, count: 1).write(
            toFile: trace, atomically: true, encoding: .utf8)
        let reports = ["json", "junit", "html"].flatMap { ["--report", "\($0):" + scratch.path("replay.\($0)")] }
        let replayed = try await serving("expired.pem", in: scratch) { base in
            await conform(["replay", trace, "--target", base, "--cacert", ca] + reports)
        }
        #expect(replayed.code == 2, "\(replayed.out)")
        let replayNotice = lines(replayed.out, starting: "warning: TLS:")
        #expect(replayNotice.count == 1, "\(replayed.out)")
        #expect(
            replayNotice.first?.hasSuffix(
                ": renew it (trusting another CA will not help; --insecure skips the "
                    + "check, for test servers only) (1 step)") == true, "\(replayed.out)")
        let json = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: scratch.path("replay.json"))))
        #expect(json["notices"]?[0]?["steps"]?.numberValue == 1)
        #expect(json["notices"]?[0]?["text"]?.stringValue?.contains(" expired on ") == true)
        let junit = try String(contentsOfFile: scratch.path("replay.junit"), encoding: .utf8)
        #expect(junit.contains(#"<property name="notice.1" value="warning: TLS: the certificate of "#))
        let html = try String(contentsOfFile: scratch.path("replay.html"), encoding: .utf8)
        #expect(html.contains("<dt>Warning</dt>"), "\(html.prefix(3000))")

        // The valid certificate through the right CA conforms: the causes above are the certificates'.
        let good = try await serving("good.pem", in: scratch) { base in
            await conform(["run", suite, "--target", base, "--cacert", ca])
        }
        #expect(good.code == 0, "\(good.out)")
    }

    /// Names a cleartext base URL in M12, answers `{"ok":true}` to anything else.
    struct Downgrading: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            request.path.hasSuffix("/baseurl")
                ? .json(200, ["baseUrl": "http://127.0.0.1:9"]) : .json(200, ["ok": true])
        }
    }

    @Test func aCleartextBaseURLFromAnHTTPSTargetIsOneWarningAndIsNotFollowed() async throws {
        let scratch = try Scratch("tlsdowngrade")
        try await Self.certificates(scratch)
        let suite = scratch.path("down.yaml")
        try """
        suite: down
        title: a cleartext base URL
        flows:
          one:
            - name: base URL
              request: {url: "{{ mobile }}/mobile/1/baseurl"}
              capture: {baseUrl: $.baseUrl}
            - name: under it
              request: {url: "{{ baseUrl }}/ok"}
          two:
            - name: base URL
              request: {url: "{{ mobile }}/mobile/1/baseurl"}
              capture: {baseUrl: $.baseUrl}
            - name: under it
              request: {url: "{{ baseUrl }}/ok"}
        """.write(toFile: suite, atomically: true, encoding: .utf8)
        let identity = TLSIdentity(
            keyPEM: try String(contentsOfFile: scratch.path("leaf.key"), encoding: .utf8),
            certificatePEM: try String(contentsOfFile: scratch.path("good.pem"), encoding: .utf8))
        let server = try HTTPServer(handler: Downgrading(), tls: identity)
        try server.start()
        defer { server.stop() }
        let run = await conform(["run", suite, "--target", server.baseURL, "--cacert", scratch.path("ca.pem")])
        #expect(run.code == 2, "\(run.out)")
        let warnings = lines(run.out, starting: "warning: ")
        #expect(warnings.count == 1, "\(run.out)")
        #expect(
            warnings.first?.hasPrefix(
                "warning: the HTTPS target announced the cleartext base URL 'http://127.0.0.1:9' (answering "
                    + "\(server.baseURL)/mobile/1/baseurl): the run does not follow it to cleartext") == true,
            "\(run.out)")
        #expect(warnings.first?.hasSuffix("--allow-host 127.0.0.1:9 to follow it anyway (2 steps)") == true)
        #expect(run.out.contains("not sent: http://127.0.0.1:9 is a cleartext base URL the HTTPS target announced"))
    }

    @Test func twoCAVariablesThatDifferAreAWarningNamingTheOneUsed() async throws {
        let scratch = try Scratch("tlsboth")
        try await Self.certificates(scratch)
        let suite = scratch.path("tls.yaml")
        try Self.suite.write(toFile: suite, atomically: true, encoding: .utf8)
        let (ca, other) = (scratch.path("ca.pem"), scratch.path("other-ca.pem"))
        let run = try await serving("good.pem", in: scratch) { base in
            await conform(
                ["run", suite, "--target", base], environment: ["CURL_CA_BUNDLE": other, "SSL_CERT_FILE": ca])
        }
        #expect(
            run.err.contains(
                "warning: CURL_CA_BUNDLE (\(other)) and SSL_CERT_FILE (\(ca)) name different CA files: CURL_CA_BUNDLE "
                    + "is used and SSL_CERT_FILE ignored, as curl does; unset one, or give --cacert"), "\(run.err)")
        #expect(run.code == 2)
        #expect(run.out.contains("the CA in use is '\(other)' (from CURL_CA_BUNDLE)"), "\(run.out)")
    }
}
