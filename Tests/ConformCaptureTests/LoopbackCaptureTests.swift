import ConformCapture
import ConformCore
import ConformCurl
import ConformMobileMessaging
import ConformProxy
import ConformReference
import ConformServer
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Real traffic on loopback, captured by Debian's tcpdump while a test drives it, imported into a recording.
@Suite(.serialized, .enabled(if: canCaptureLive, "needs tcpdump and CAP_NET_RAW on lo"))
struct LoopbackCaptureTests {
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts")

    /// The reference behind `conform record`'s proxy, a keep-alive client through the proxy and a pipelining raw
    /// client, all captured on the proxy's port: the capture and the proxy's own recording (unredacted: pseudonyms are
    /// keyed per recording, so two redacted recordings of the same traffic differ by design).
    static func recordedAndCaptured(_ scratch: Scratch) async throws -> (
        capture: String, recorded: String, port: UInt16
    ) {
        let reference = try HTTPServer(handler: ReferenceImplementation())
        try reference.start()
        defer { reference.stop() }
        let recorded = scratch.path("recorded")
        let writer = try RecordingWriter(directory: recorded, profile: .mobileMessaging, redaction: .disabled)
        let proxy = RecordingProxy(
            upstreams: ["*": reference.baseURL], transport: CurlTransport(), writer: writer, profile: .mobileMessaging)
        // The keep-alive client's connection stays one stream however long a loaded machine starves this test:
        // no idle or head timeout closes it between its requests.
        var limits = HTTPServerLimits.default
        limits.headerTimeoutSeconds = 3600
        limits.requestTimeoutSeconds = 3600
        limits.connectionTimeoutSeconds = 0
        let server = try HTTPServer(handler: proxy.handler, limits: limits)
        try server.start()
        defer { server.stop() }
        let port = server.boundPort
        let capture = scratch.path("lo.pcap")
        let dump = try TCPDump(filter: "tcp port \(port)", file: capture, scratch: scratch)
        defer { dump.stop() }
        let client = RebasedTransport(base: server.baseURL, inner: CurlTransport(timeout: .seconds(10)))
        let app: HTTPFields = ["Authorization": "App conform-app-code", "Content-Type": "application/json"]
        let registration = try await client.send(
            HTTPRequest(
                method: .post, url: "/mobile/1/appinstance?ri=true", headerFields: app,
                body: Data(#"{"pushServiceToken":"tok-capture-1","pushServiceType":"Firebase","os":"Android"}"#.utf8)))
        let id = try #require(try JSONValue.parse(registration.body)["pushRegId"]?.stringValue)
        var device = app
        device["pushregistrationid"] = id
        _ = try await client.send(
            HTTPRequest(
                method: .post, url: "/mobile/1/appinstance/\(id)/user/personalize", headerFields: device,
                body: Data(#"{"userIdentity":{"externalUserId":"ana"}}"#.utf8)))
        _ = try await client.send(
            HTTPRequest(method: .get, url: "/mobile/1/appinstance/\(id)/user", headerFields: device))
        // Two requests in one write on a fresh connection: pipelined.
        let get =
            "GET /mobile/1/appinstance/\(id)/user HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Authorization: App conform-app-code\r\npushregistrationid: \(id)\r\n\r\n"
        let answer = rawExchange(port: port, Array((get + get).utf8), expectedResponses: 2)
        #expect(answer.components(separatedBy: "HTTP/1.1 200").count == 3, "both pipelined requests answered")
        dump.stop()
        writer.close()
        return (capture, recorded, port)
    }

    @Test(.timeLimit(.minutes(2)))
    func importedRecordingEqualsTheRecordersUpToTimings() async throws {
        let scratch = try Scratch("capture")
        let (capture, recorded, port) = try await Self.recordedAndCaptured(scratch)
        let expected = try exchanges(in: recorded)
        #expect(expected.count == 5)
        let (imported, summary) = try importCapture(
            capture, scratch: scratch, options: CaptureOptions(ports: [port]), redaction: .disabled)
        #expect(lines(imported) == lines(expected), "\(difference(lines(imported), lines(expected)))")
        // Redacted by default, as the recorder redacts: the push token never reaches the disk.
        let (redacted, _) = try importCapture(
            capture, scratch: scratch, name: "redacted", options: CaptureOptions(ports: [port]))
        #expect(redacted.count == expected.count)
        #expect(!lines(redacted).joined().contains("tok-capture-1"))
        #expect(lines(expected).joined().contains("tok-capture-1"))
        #expect(summary.streams == 2)
        #expect(summary.problemStreams.isEmpty, "\(summary.lines)")
        // Timings come from the packets, on the recorder's clock. How far a packet's time lies from the recorder's
        // stamp depends on how busy the machine is (seconds under a loaded test run), so the bound only catches a
        // time that is not this run's.
        for (a, b) in zip(imported, expected) {
            #expect(abs(a.startedAt.timeIntervalSince(b.startedAt)) < 60)
        }
    }

    @Test(.timeLimit(.minutes(2)), .enabled(if: Tool.has("tshark"), "needs tshark"))
    func tsharkListsTheSameRequestsInTheSameOrder() async throws {
        let scratch = try Scratch("capture")
        let (capture, _, port) = try await Self.recordedAndCaptured(scratch)
        let (imported, _) = try importCapture(
            capture, scratch: scratch, options: CaptureOptions(ports: [port]), redaction: .disabled)
        let tshark = try await shell(
            "tshark -r '\(capture)' -d tcp.port==\(port),http -Y http.request -T fields -e http.request.uri 2>/dev/null"
        )
        // A frame carrying two pipelined requests lists both, comma-separated.
        let uris = tshark.output.split(whereSeparator: { $0 == "\n" || $0 == "," }).map(String.init)
        #expect(uris == imported.map(\.request.url))
        // The same capture as pcapng (Wireshark's editcap) reads the same.
        let pcapng = scratch.path("lo.pcapng")
        let converted = try await shell("editcap -F pcapng '\(capture)' '\(pcapng)' 2>&1")
        #expect(converted.status == 0, "\(converted.output)")
        #expect(CaptureFormat.isCapture(path: pcapng))
        let (again, _) = try importCapture(
            pcapng, scratch: scratch, name: "pcapng", options: CaptureOptions(ports: [port]), redaction: .disabled)
        #expect(lines(again) == lines(imported))
    }

    @Test(.timeLimit(.minutes(2)), .enabled(if: hasScapy, "needs Scapy"))
    func reorderedAndDuplicatedSegmentsGiveTheSameRecording() async throws {
        let scratch = try Scratch("capture")
        let (capture, recorded, port) = try await Self.recordedAndCaptured(scratch)
        let expected = lines(try exchanges(in: recorded))
        for mode in ["reorder", "duplicate"] {
            let altered = scratch.path("\(mode).pcap")
            let run = try await shell(
                "python3 '\(Self.scripts.path)/alter.py' '\(capture)' '\(altered)' \(mode) 2>&1")
            #expect(run.status == 0, "\(run.output)")
            let (imported, summary) = try importCapture(
                altered, scratch: scratch, name: mode, options: CaptureOptions(ports: [port]), redaction: .disabled)
            #expect(lines(imported) == expected, "\(mode)")
            #expect(summary.problemStreams.isEmpty, "\(mode): \(summary.lines)")
            if mode == "reorder" { #expect(summary.reorderedSegments > 0) }
            if mode == "duplicate" { #expect(summary.duplicateSegments > 0) }
        }
    }

    @Test(.timeLimit(.minutes(2)), .enabled(if: hasScapy, "needs Scapy"))
    func aMissingSegmentIsReportedAndWhatCameBeforeIsKept() async throws {
        let scratch = try Scratch("capture")
        let (capture, recorded, port) = try await Self.recordedAndCaptured(scratch)
        let expected = try exchanges(in: recorded).map(untimed)
        // The third request of the kept-alive stream never captured.
        let altered = scratch.path("drop.pcap")
        let run = try await shell(
            "python3 '\(Self.scripts.path)/alter.py' '\(capture)' '\(altered)' drop 3 \(port) 2>&1")
        #expect(run.status == 0, "\(run.output)")
        let (imported, summary) = try importCapture(
            altered, scratch: scratch, options: CaptureOptions(ports: [port]), redaction: .disabled)
        #expect(
            imported.map(\.request.url) == expected.prefix(2).map(\.request.url) + expected.suffix(2).map(\.request.url)
        )
        #expect(summary.lostBytes > 0)
        let stream = try #require(summary.problemStreams.first)
        #expect(stream.number == 1)
        #expect(stream.exchanges == 2)
        #expect(stream.problems.map(\.kind) == [.lost], "\(summary.lines)")
    }

    @Test(.timeLimit(.minutes(2)))
    func aTruncatedFileKeepsWhatCameBeforeTheCut() async throws {
        let scratch = try Scratch("capture")
        let (capture, recorded, port) = try await Self.recordedAndCaptured(scratch)
        let data = try Data(contentsOf: URL(fileURLWithPath: capture))
        let cut = scratch.path("cut.pcap")
        try data.prefix(data.count - 7).write(to: URL(fileURLWithPath: cut))
        let (imported, summary) = try importCapture(
            cut, scratch: scratch, options: CaptureOptions(ports: [port]), redaction: .disabled)
        let readError = try #require(summary.readError)
        #expect(readError.message.contains("cut off"))
        #expect(!imported.isEmpty)
        #expect(lines(imported) == Array(lines(try exchanges(in: recorded)).prefix(imported.count)))
    }

    @Test(.timeLimit(.minutes(2)), .enabled(if: Tool.has("curl") && Tool.has("python3"), "needs curl and python3"))
    func chunkedGzipResponsesOnAKeptAliveConnection() async throws {
        let scratch = try Scratch("capture")
        let portFile = scratch.url.appendingPathComponent("port")
        let server = SpawnedProcess()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", Self.scripts.appendingPathComponent("chunked_server.py").path]
        try Data().write(to: portFile)
        server.standardOutput = try FileHandle(forWritingTo: portFile)
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        var port: UInt16 = 0
        let deadline = Date().addingTimeInterval(10)
        while port == 0, Date() < deadline {
            port =
                UInt16(
                    (try? String(contentsOf: portFile, encoding: .utf8))?.trimmingCharacters(
                        in: .whitespacesAndNewlines) ?? "") ?? 0
            if port == 0 { usleep(20_000) }
        }
        try #require(port != 0, "the chunked server did not start")
        let capture = scratch.path("chunked.pcap")
        let dump = try TCPDump(filter: "tcp port \(port)", file: capture, scratch: scratch)
        defer { dump.stop() }
        let base = "http://127.0.0.1:\(port)"
        let curl = try await shell(
            "curl -sS --max-time 20 -o /dev/null '\(base)/push/1/a' -o /dev/null '\(base)/push/1/b' "
                + "-o /dev/null '\(base)/push/1/c' 2>&1")
        dump.stop()
        #expect(curl.status == 0, "\(curl.output)")
        let (imported, summary) = try importCapture(capture, scratch: scratch)
        #expect(summary.streams == 1, "one kept-alive connection")
        #expect(imported.map(\.request.url) == ["/push/1/a", "/push/1/b", "/push/1/c"])
        for (i, exchange) in imported.enumerated() {
            let body = try JSONValue.parse(exchange.response.body)
            #expect(body["served"] == .int(i + 1))
            #expect(exchange.response.headerFields[ContentDecoding.decodedHeader] == "gzip")
            #expect(exchange.response.headerFields["Transfer-Encoding"] == nil)
        }
    }

    @Test(.timeLimit(.minutes(2)), .enabled(if: Tool.has("openssl") && Tool.has("curl"), "needs openssl and curl"))
    func tlsIsReportedNotRead() async throws {
        let scratch = try Scratch("capture")
        let dir = scratch.url.path
        let capture = scratch.path("tls.pcap")
        let keys = try await shell(
            "cd '\(dir)' && openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -keyout key.pem "
                + "-out cert.pem -days 1 >/dev/null 2>&1 && echo ok")
        try #require(keys.output.contains("ok"))
        // The server picks a free port and says it once it listens ("ACCEPT 127.0.0.1:PORT"): waited for, bounded,
        // rather than guessed (a port chosen at random may be taken; a second's sleep may be too short on a busy box).
        let log = scratch.url.appendingPathComponent("server.out")
        try Data().write(to: log)
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }
        let server = SpawnedProcess()
        server.executableURL = URL(fileURLWithPath: try #require(Tool.path("openssl")))
        server.arguments = ["s_server", "-accept", "127.0.0.1:0", "-cert", "cert.pem", "-key", "key.pem", "-www"]
        server.currentDirectoryURL = scratch.url
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = output
        server.standardError = output
        let exit = try ProcessExit(starting: server)
        // A child inherits the test process's blocked signals (TERM among them): killed, also when a check fails,
        // and reaped.
        defer {
            kill(server.processIdentifier, SIGKILL)
            exit.wait()
        }
        var port: UInt16?
        let deadline = Date().addingTimeInterval(20)
        while port == nil, server.isRunning, Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT 127.0.0.1:") }) {
                port = UInt16(line.dropFirst("ACCEPT 127.0.0.1:".count))
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let listening = try #require(port, "\((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        let dump = try TCPDump(filter: "tcp port \(listening)", file: capture, scratch: scratch)
        defer { dump.stop() }
        let run = try await shell(
            "curl -sk --max-time 10 -o /dev/null -w '%{http_code}' https://127.0.0.1:\(listening)/mobile/1/secret",
            timeout: 30)
        dump.stop()
        #expect(run.output.contains("200"), "\(run.output)")
        let (imported, summary) = try importCapture(capture, scratch: scratch)
        #expect(imported.isEmpty)
        #expect(summary.problemCounts["tls"] == 1, "\(summary.lines)")
        #expect(summary.lines.joined().contains("TLS: the bytes are encrypted"))
    }
}
