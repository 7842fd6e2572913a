import ConformCore
import ConformProxy
import ConformReport
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

@testable import ConformCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `conform record --forward` in front of `conform serve --tls`, with real clients set to use it as their proxy and
/// trusting the local CA: each one's exchange is recorded byte for byte as the client sent it and the upstream
/// answered it.
@Suite(.enabled(if: Tool.has("curl"), "needs curl"))
struct ForwardRecordTests {
    /// An HTTPS upstream and a forward proxy that opens it by the name `localhost`, both with one CA under `scratch`.
    final class Fixture: Sendable {
        let scratch: Scratch
        let upstream: ConformProcess
        let recorder: ConformProcess
        let recording: String
        let port: String
        var ca: String { scratch.path("config/conform/ca/ca-cert.pem") }
        /// The upstream as clients name it: the proxy opens `localhost` on its port.
        var origin: String { "https://localhost:\(port)" }
        var proxy: String { recorder.baseURL }

        init(_ name: String, extra: [String] = []) async throws {
            let scratch = try Scratch(name)
            self.scratch = scratch
            let environment = TLSCommandTests.environment(scratch)
            upstream = try await TLSCommandTests.serveTLS(scratch)
            let port = String(upstream.baseURL.split(separator: ":").last ?? "")
            self.port = port
            let recording = scratch.path("recorded")
            self.recording = recording
            recorder = try await offThePool {
                try ConformProcess(
                    [
                        "record", "--forward", "--allow-host", "localhost:\(port)", "--no-redact", "--out", recording,
                        "--cacert", scratch.path("config/conform/ca/ca-cert.pem"),
                    ] + extra, scratch: scratch, banner: "Recording as a forward proxy on ", environment: environment)
            }
        }

        /// Stops the proxy (then the upstream) and returns how it ended and the exchanges it recorded.
        func finish() async throws -> (code: Int32, out: String, exchanges: [RecordedExchange]) {
            let ended = try await offThePool { try self.recorder.interrupt() }
            _ = try await offThePool { try self.upstream.interrupt() }
            let reader = try RecordingReader(path: recording)
            var exchanges: [RecordedExchange] = []
            while let exchange = try reader.next() { exchanges.append(exchange) }
            return (ended.code, ended.out + ended.err, exchanges)
        }
    }

    /// The registration each client sends, told apart by its token.
    static func registration(_ client: String) -> String {
        #"{"pushServiceToken":"token-\#(client)","platformType":"GCM"}"#
    }

    static let path = "/mobile/1/appinstance?ri=true"

    /// One client's registration: what it sent and what it printed as the answer's body.
    struct Sent {
        var client: String
        var printed: String
    }

    @Test func curlPythonAndJavaClientsAreRecordedAsTheySentAndTheUpstreamAnswered() async throws {
        let fixture = try await Fixture("forwardclients")
        let url = fixture.origin + Self.path
        var sent: [Sent] = []
        let curl = try await ChildProcess.output(
            Tool.path("curl")!,
            [
                "-sS", "--proxy", fixture.proxy, "--cacert", fixture.ca, "-X", "POST", "-H",
                "Authorization: App conform-app-code", "-H", "Content-Type: application/json", "--data",
                Self.registration("curl"), url,
            ])
        sent.append(Sent(client: "curl", printed: curl.output))
        if Tool.has("python3") {
            for (client, script) in Self.pythonClients {
                let file = fixture.scratch.path("client_\(client).py")
                try script.write(toFile: file, atomically: true, encoding: .utf8)
                let outcome = try await ChildProcess.output(
                    Tool.path("python3")!, [file, fixture.proxy, url, fixture.ca, Self.registration(client)],
                    separateStandardError: true)
                if outcome.status == 3 { continue }  // The library is not installed (scripts/setup installs it).
                #expect(outcome.status == 0, "\(client): \(outcome.output)\(outcome.errorOutput)")
                sent.append(Sent(client: client, printed: outcome.output))
            }
        }
        if Tool.has("java") && Tool.has("keytool") {
            sent += try await javaClients(fixture, url: url)
        }
        let (code, out, exchanges) = try await fixture.finish()
        #expect(code == 0, "\(out)")
        #expect(exchanges.count == sent.count, "\(out)")
        for client in sent {
            let body = Self.registration(client.client)
            let exchange = try #require(
                exchanges.first { String(decoding: $0.request.body, as: UTF8.self) == body }, "\(client.client)")
            #expect(exchange.request.url == Self.path)
            #expect(exchange.request.method == .post)
            #expect(exchange.request.headerFields["Authorization"] == "App conform-app-code")
            #expect(exchange.upstream == "localhost:\(fixture.port)")
            #expect(exchange.response.status.code == 200, "\(client.client)")
            #expect(String(decoding: exchange.response.body, as: UTF8.self) == client.printed, "\(client.client)")
            #expect(client.printed.contains(#""pushRegId":"#), "\(client.client): \(client.printed)")
        }
        #expect(sent.map(\.client).contains("curl"))
        if Tool.has("java") && FileManager.default.fileExists(atPath: "/usr/share/java/okhttp.jar") {
            #expect(Set(sent.map(\.client)).isSuperset(of: ["java", "okhttp"]))
        }
        if Tool.has("python3") {
            #expect(sent.map(\.client).contains("requests"), "scripts/setup installs requests")
        }
    }

    /// Clients in Python: requests and httpx, each trusting the CA file and told the proxy; exit 3 when the library
    /// is missing.
    static let pythonClients: [(String, String)] = [
        (
            "requests",
            """
            import sys
            try:
                import requests
            except ImportError:
                sys.exit(3)
            proxy, url, ca, body = sys.argv[1:5]
            r = requests.post(url, data=body.encode(), verify=ca, proxies={"http": proxy, "https": proxy},
                headers={"Authorization": "App conform-app-code", "Content-Type": "application/json"})
            sys.stdout.write(r.text)
            """
        ),
        (
            "httpx",
            """
            import ssl, sys
            try:
                import httpx
            except ImportError:
                sys.exit(3)
            proxy, url, ca, body = sys.argv[1:5]
            with httpx.Client(proxy=proxy, verify=ssl.create_default_context(cafile=ca)) as client:
                r = client.post(url, content=body.encode(),
                    headers={"Authorization": "App conform-app-code", "Content-Type": "application/json"})
            sys.stdout.write(r.text)
            """
        ),
    ]

    /// OpenJDK's `HttpURLConnection` and OkHttp (Debian's `libokhttp-java`, when installed) with a PKCS12 truststore
    /// holding the local CA and the proxy named explicitly (a JVM sends nothing for `localhost` through a proxy
    /// set by system properties).
    func javaClients(_ fixture: Fixture, url: String) async throws -> [Sent] {
        let store = fixture.scratch.path("truststore.p12")
        let imported = try await ChildProcess.output(
            Tool.path("keytool")!,
            [
                "-importcert", "-noprompt", "-alias", "conform", "-storetype", "PKCS12", "-storepass", "changeit",
                "-keystore", store, "-file", fixture.ca,
            ])
        #expect(imported.status == 0, "\(imported.output)")
        let proxyPort = String(fixture.proxy.split(separator: ":").last ?? "")
        let trust = ["-Djavax.net.ssl.trustStore=\(store)", "-Djavax.net.ssl.trustStorePassword=changeit"]
        var sent: [Sent] = []
        let plainJava = """
            import java.net.*; import java.io.*; import java.nio.charset.StandardCharsets;
            public class Client {
                public static void main(String[] args) throws Exception {
                    Proxy proxy = new Proxy(Proxy.Type.HTTP, new InetSocketAddress("127.0.0.1", Integer.parseInt(args[1])));
                    HttpURLConnection c = (HttpURLConnection) new URL(args[0]).openConnection(proxy);
                    c.setRequestMethod("POST");
                    c.setDoOutput(true);
                    c.setRequestProperty("Authorization", "App conform-app-code");
                    c.setRequestProperty("Content-Type", "application/json");
                    try (OutputStream out = c.getOutputStream()) { out.write(args[2].getBytes(StandardCharsets.UTF_8)); }
                    try (InputStream in = c.getInputStream()) { System.out.print(new String(in.readAllBytes(), "UTF-8")); }
                }
            }
            """
        try plainJava.write(toFile: fixture.scratch.path("Client.java"), atomically: true, encoding: .utf8)
        let java = try await ChildProcess.output(
            Tool.path("java")!,
            trust + [fixture.scratch.path("Client.java"), url, proxyPort, Self.registration("java")],
            separateStandardError: true)
        #expect(java.status == 0, "\(java.output)\(java.errorOutput)")
        sent.append(Sent(client: "java", printed: java.output))
        let jars = ["/usr/share/java/okhttp.jar", "/usr/share/java/okio.jar"]
        guard jars.allSatisfy(FileManager.default.fileExists(atPath:)) else { return sent }
        let okhttp = """
            import java.net.*; import okhttp3.*;
            public class OkClient {
                public static void main(String[] args) throws Exception {
                    OkHttpClient client = new OkHttpClient.Builder()
                        .proxy(new Proxy(Proxy.Type.HTTP, new InetSocketAddress("127.0.0.1", Integer.parseInt(args[1]))))
                        .build();
                    Request request = new Request.Builder().url(args[0])
                        .header("Authorization", "App conform-app-code")
                        .post(RequestBody.create(MediaType.get("application/json"), args[2]))
                        .build();
                    try (Response response = client.newCall(request).execute()) {
                        System.out.print(response.body().string());
                    }
                }
            }
            """
        try okhttp.write(toFile: fixture.scratch.path("OkClient.java"), atomically: true, encoding: .utf8)
        let ok = try await ChildProcess.output(
            Tool.path("java")!,
            trust + [
                "-cp", jars.joined(separator: ":"), fixture.scratch.path("OkClient.java"), url, proxyPort,
                Self.registration("okhttp"),
            ], separateStandardError: true)
        #expect(ok.status == 0, "\(ok.output)\(ok.errorOutput)")
        sent.append(Sent(client: "okhttp", printed: ok.output))
        return sent
    }

    /// Chromium through Playwright with the proxy, trusting the CA through an NSS database in its own home (what
    /// docs/devices.md tells a web developer to do): the page and its `fetch` are recorded as the browser sent them.
    @Test(
        .enabled(
            if: Tool.has("python3") && Tool.has("certutil")
                && FileManager.default.fileExists(atPath: "/usr/bin/chromium"),
            "needs Playwright for Python, certutil (libnss3-tools) and Debian's chromium"))
    func chromiumThroughPlaywrightIsRecorded() async throws {
        let fixture = try await Fixture("forwardchromium")
        let home = fixture.scratch.path("home")
        let database = "sql:" + home + "/.pki/nssdb"
        try FileManager.default.createDirectory(atPath: home + "/.pki/nssdb", withIntermediateDirectories: true)
        let certutil = Tool.path("certutil")!
        let made = try await ChildProcess.output(certutil, ["-d", database, "-N", "--empty-password"])
        #expect(made.status == 0, "\(made.output)")
        let added = try await ChildProcess.output(
            certutil, ["-d", database, "-A", "-n", "conform", "-t", "C,,", "-i", fixture.ca])
        #expect(added.status == 0, "\(added.output)")
        let script = fixture.scratch.path("client_browser.py")
        try Self.browserScript.write(toFile: script, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        let outcome = try await ChildProcess.output(
            Tool.path("python3")!, [script, fixture.proxy, fixture.origin, Self.registration("chromium")],
            environment: environment, separateStandardError: true)
        let (code, out, exchanges) = try await fixture.finish()
        try #require(outcome.status != 3, "Playwright for Python is not installed")
        #expect(outcome.status == 0, "\(outcome.output)\(outcome.errorOutput)")
        #expect(code == 0, "\(out)")
        let exchange = try #require(
            exchanges.first { String(decoding: $0.request.body, as: UTF8.self) == Self.registration("chromium") },
            "\(out)")
        #expect(exchange.request.url == Self.path)
        #expect(String(decoding: exchange.response.body, as: UTF8.self) == outcome.output)
        #expect(outcome.output.contains(#""pushServiceToken":"token-chromium""#), "\(outcome.output)")
        #expect(exchanges.contains { $0.request.url == "/mobile/1/page" && $0.request.method == .get })
    }

    /// Chromium sends nothing for loopback hosts through a proxy unless `<-loopback>` is in its bypass list.
    static let browserScript = #"""
        import sys
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            sys.exit(3)
        proxy, origin, body = sys.argv[1:4]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                args=["--no-sandbox", "--proxy-bypass-list=<-loopback>"], proxy={"server": proxy})
            page = browser.new_page()
            page.goto(origin + "/mobile/1/page")
            text = page.evaluate("""async ([url, body]) => {
                const r = await fetch(url, {method: "POST", body,
                    headers: {"Authorization": "App conform-app-code", "Content-Type": "application/json"}});
                return await r.text();
            }""", [origin + "/mobile/1/appinstance?ri=true", body])
            sys.stdout.write(text)
            browser.close()
        """#

    /// The bundled suites conform against `conform serve --tls` reached through the forward proxy (`run --proxy`),
    /// which records every exchange of the run under the upstream's name.
    @Test func theBundledSuitesConformThroughTheForwardProxy() async throws {
        let fixture = try await Fixture("forwardsuites")
        let run = await TLSCommandTests().conform(
            ["run", "--target", fixture.origin, "--proxy", fixture.proxy, "--cacert", fixture.ca], environment: [:])
        #expect(run.code == 0, "\(run.out.suffix(2000))\(run.err)")
        #expect(run.out.hasSuffix("Result: CONFORMS\n"))
        let (code, out, exchanges) = try await fixture.finish()
        #expect(code == 0, "\(out)")
        #expect(exchanges.count > 50, "every exchange of the run is recorded: \(exchanges.count)")
        #expect(exchanges.allSatisfy { $0.upstream == "localhost:\(fixture.port)" })
        let mistaken = await TLSCommandTests().conform(
            ["run", "--target", fixture.origin, "--proxy", "localhost:1"], environment: [:])
        #expect(mistaken.code == 64)
        #expect(mistaken.err.contains("--proxy takes http://HOST:PORT"), "\(mistaken.err)")
    }

    /// What is not allowed never reaches the upstream and is never recorded; app events go to the reserved host.
    @Test func otherHostsAreRefusedAndAppEventsGoToTheReservedHost() async throws {
        let fixture = try await Fixture("forwardrefuse")
        let curl = Tool.path("curl")!
        let other = try await ChildProcess.output(
            curl, ["-sS", "--proxy", fixture.proxy, "--cacert", fixture.ca, "https://elsewhere.example.test/"])
        #expect(other.status == 56, "CONNECT refused: \(other.output)")
        let plain = try await ChildProcess.output(
            curl, ["-sS", "--proxy", fixture.proxy, "http://elsewhere.example.test/mobile/1/x"])
        #expect(plain.output.contains("FORWARD_NOT_ALLOWED"), "\(plain.output)")
        #expect(plain.output.contains("add --allow-host elsewhere.example.test"), "\(plain.output)")
        let event = try await ChildProcess.output(
            curl,
            [
                "-sS", "--proxy", fixture.proxy, "-H", "Content-Type: application/json", "--data",
                #"{"event":"login","externalUserId":"user-1"}"#, "http://conform.invalid/_conform/events",
            ])
        #expect(event.output.hasPrefix(#"{"recorded":[{"seq":1"#), "\(event.output)")
        // Through CONNECT too, with a leaf for the reserved name; anything but the events path is answered there.
        let overTLS = try await ChildProcess.output(
            curl,
            [
                "-sS", "--proxy", fixture.proxy, "--cacert", fixture.ca, "-H", "Content-Type: application/json",
                "--data", #"{"event":"logout","pushRegId":"reg-1"}"#, "https://conform.invalid/_conform/events",
            ])
        #expect(overTLS.output.hasPrefix(#"{"recorded":[{"seq":2"#), "\(overTLS.output)")
        let elsewhere = try await ChildProcess.output(
            curl, ["-sS", "--proxy", fixture.proxy, "--cacert", fixture.ca, "https://conform.invalid/mobile/1/x"])
        #expect(elsewhere.output.contains("answers only POST /_conform/events"), "\(elsewhere.output)")
        // A client that does not trust the local CA closes its tunnel when it sees the leaf.
        let untrusting = try await ChildProcess.output(curl, ["-sS", "--proxy", fixture.proxy, fixture.origin + "/"])
        #expect(untrusting.status == 60, "\(untrusting.output)")
        let (code, out, exchanges) = try await fixture.finish()
        #expect(code == 0)
        #expect(exchanges.isEmpty, "nothing refused is recorded")
        // Each refusal and failed handshake is said as it comes, with what would allow it, and counted at the end.
        #expect(out.contains("refused CONNECT (403): CONNECT to elsewhere.example.test:443 is not allowed"), "\(out)")
        #expect(out.contains("refused GET http://elsewhere.example.test…: "), "\(out)")
        #expect(out.contains("(add --allow-host elsewhere.example.test)\n"), "\(out)")
        #expect(
            out.contains("a client closed its tunnel to localhost once it saw the leaf, sending no request"), "\(out)")
        #expect(out.contains("Refused 1 CONNECT and 1 plain request (hosts or ports not allowed"), "\(out)")
        #expect(
            out.contains(
                "TLS handshakes that failed in intercepted tunnels: 1 (1 closed by a client that does not trust the "
                    + "local CA or pins certificates, 0 naming another host, 0 with no handshake)"), "\(out)")
        #expect(out.contains("App event 1: login"), "\(out)")
        #expect(out.contains("App event 2: logout"), "\(out)")
        #expect(out.contains("Recorded 0 exchanges and 2 app events"), "\(out)")
    }

    /// `--check` works in forward mode as in reverse mode: the live check's result goes to the console.
    @Test func theLiveCheckJudgesTheForwardedTraffic() async throws {
        let fixture = try await Fixture("forwardcheck", extra: ["--check"])
        let registered = try await ChildProcess.output(
            Tool.path("curl")!,
            [
                "-sS", "--proxy", fixture.proxy, "--cacert", fixture.ca, "-X", "POST", "-H",
                "Authorization: App conform-app-code", "-H", "Content-Type: application/json", "--data",
                Self.registration("check"), fixture.origin + Self.path,
            ])
        let id = try #require(try JSONValue.parse(Data(registered.output.utf8))["pushRegId"]?.stringValue)
        // A personalize before the registration that issued its pushRegId breaks `registration-first`; one after it
        // keeps the rule: the check judges both, live, and reports the one broken.
        for target in ["00000000-0000-4000-8000-000000000000", id] {
            _ = try await ChildProcess.output(
                Tool.path("curl")!,
                [
                    "-sS", "--proxy", fixture.proxy, "--cacert", fixture.ca, "-X", "POST", "-H",
                    "Authorization: App conform-app-code", "-H", "pushregistrationid: \(target)", "-H",
                    "Content-Type: application/json", "--data", #"{"userIdentity":{"externalUserId":"ana"}}"#,
                    fixture.origin + "/mobile/1/appinstance/\(target)/personalize",
                ])
        }
        let (code, out, exchanges) = try await fixture.finish()
        #expect(exchanges.count == 3)
        #expect(code == 1, "\(out)")
        #expect(out.contains("✘ check-1-registration › registration-first: "), "\(out)")
        #expect(out.contains("\nResult: 1 violation\n"), "\(out)")
    }

    /// A listener on every interface names the addresses a device uses and says what it exposes; one on a single
    /// address says nothing more.
    @Test func aListenerOnEveryInterfaceNamesTheDeviceAddressesAndTheRisk() {
        let notes = DeviceAddresses.notes(host: "0.0.0.0", port: 8080, scheme: "http")
        #expect(notes.first?.hasPrefix("Listening on every interface: anyone who can reach this machine") == true)
        #expect(notes.first?.contains("credentials") == true)
        let addresses = ListenerTLS.localAddresses().filter { !$0.hasPrefix("127.") && $0 != "::1" }
        for address in addresses {
            let shown = address.contains(":") ? "[\(address)]" : address
            #expect(notes.contains("From a device on this network: http://\(shown):8080"), "\(notes)")
        }
        #expect(notes.allSatisfy { !$0.contains("//127.0.0.1") })
        if addresses.isEmpty { #expect(notes.contains { $0.contains("adb reverse tcp:8080 tcp:8080") }) }
        #expect(DeviceAddresses.notes(host: "127.0.0.1", port: 8080, scheme: "http").isEmpty)
    }

    @Test func forwardOptionMistakesAreUsageErrors() async throws {
        let io = { (err: MemorySink) in
            CommandIO(out: MemorySink(), err: err, color: false, environment: [:], currentDirectory: "/tmp")
        }
        for (args, says) in [
            (["--forward", "--out", "r"], "--forward needs at least one --allow-host HOST"),
            (["--allow-host", "a.example", "--upstream", "http://x", "--out", "r"], "add --forward"),
            (
                ["--forward", "--allow-host", "a.example", "--upstream", "http://x", "--out", "r"],
                "use one or the other"
            ),
            (["--forward", "--allow-host", "https://a.example", "--out", "r"], "--allow-host takes HOST or HOST:PORT"),
            (["--forward", "--allow-host", "a.example", "--other-hosts", "pass", "--out", "r"], "refuse"),
            (
                ["--forward", "--allow-host", "a.example", "--other-hosts", "tunnel:443,0", "--out", "r"],
                "--other-hosts takes refuse, tunnel (port 443) or tunnel:PORT[,PORT...] (ports 1 to 65535, such as "
                    + "tunnel:443,8443), got 'tunnel:443,0'"
            ),
            (["--forward", "--allow-host", "a.example", "--tls", "--out", "r"], "--tls is for a reverse proxy"),
            (["--out", "r"], "--upstream is required"),
        ] {
            let err = MemorySink()
            let code = await ConformCommand.main(["conform", "record"] + args, io: io(err))
            #expect(code == 64, "\(args): \(err.text)")
            #expect(err.text.contains(says), "\(args): \(err.text)")
        }
    }
}
