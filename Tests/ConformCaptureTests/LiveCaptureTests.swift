import ConformCapture
import ConformCore
import ConformCurl
import ConformReference
import ConformServer
import ConformTestSupport
import ConformTraffic
import Foundation
import Synchronization
import Testing

/// Live capture on `lo` through libpcap, while a client talks to the reference: what `conform capture` does.
@Suite(.enabled(if: canCaptureLive, "needs CAP_NET_RAW on lo"))
struct LiveCaptureTests {
    @Test(.timeLimit(.minutes(1)))
    func exchangesOnLoopbackAreRecordedAsTheyHappen() async throws {
        let scratch = try Scratch("capture")
        let server = try HTTPServer(handler: ReferenceImplementation())
        try server.start()
        defer { server.stop() }
        let port = server.boundPort
        let out = scratch.path("live")
        let state = Mutex((ready: false, stop: false))
        // The capture blocks its thread in libpcap: a thread of its own, not one of the pool's.
        async let captured = offThePool { () throws -> CaptureSummary in
            let source = try PacketSource(interface: "lo", filter: "tcp port \(port)", timeoutMs: 50)
            state.withLock { $0.ready = true }
            let writer = try RecordingWriter(directory: out, redaction: .disabled)
            defer { writer.close() }
            return try CaptureImport.run(
                source: source, options: CaptureOptions(ports: [port]), writer: writer,
                shouldStop: { state.withLock { $0.stop } })
        }
        let deadline = Date().addingTimeInterval(10)
        while !state.withLock({ $0.ready }), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let client = RebasedTransport(base: server.baseURL, inner: CurlTransport(timeout: .seconds(10)))
        let registration = try await client.send(
            HTTPRequest(
                method: .post, url: "/mobile/1/appinstance?ri=true",
                headerFields: ["Authorization": "App conform-app-code", "Content-Type": "application/json"],
                body: Data(#"{"pushServiceToken":"tok-live","pushServiceType":"Firebase","os":"Android"}"#.utf8)))
        let id = try #require(try JSONValue.parse(registration.body)["pushRegId"]?.stringValue)
        for _ in 0..<3 {
            _ = try await client.send(
                HTTPRequest(
                    method: .get, url: "/mobile/1/appinstance/\(id)/user",
                    headerFields: ["Authorization": "App conform-app-code", "pushregistrationid": id]))
        }
        // Time for a loaded machine's capture thread to read the last packets before it is told to stop.
        try await Task.sleep(for: .seconds(1))
        state.withLock { $0.stop = true }
        let summary = try await captured
        let recorded = try exchanges(in: out)
        #expect(recorded.map(\.request.method.rawValue) == ["POST", "GET", "GET", "GET"])
        #expect(Set(recorded.map(\.flow)) == [id], "flows by pushRegId, as the recorder derives them")
        #expect(summary.exchanges == 4)
        #expect(summary.kernelDropped == 0)
    }
}

/// `conform capture --check` (the built binary) on `lo`: the flow's rules judged as the traffic is captured, each
/// violation told as it comes and the whole one result, as `conform check` of the recording gives.
@Suite(.enabled(if: canCaptureLive, "needs CAP_NET_RAW on lo"))
struct LiveCaptureCheckTests {
    @Test(.timeLimit(.minutes(1)))
    func aUserCallBeforeRegistrationIsAViolationToldAsItComes() async throws {
        let scratch = try Scratch("capture-check")
        let server = try HTTPServer(handler: ReferenceImplementation())
        try server.start()
        defer { server.stop() }
        let (log, errors, report) = (
            scratch.url.appendingPathComponent("out.log"), scratch.url.appendingPathComponent("err.log"),
            scratch.path("report.json")
        )
        async let status = ChildProcess.run(
            TestPaths.conformBinary.path,
            [
                "capture", "--interface", "lo", "--port", String(server.boundPort), "--out", scratch.path("live"),
                "--check", "--duration", "6s", "--report", "json:\(report)",
            ], log: log, errorLog: errors)
        // The banner comes once libpcap holds the interface: from then on every packet is captured.
        let deadline = Date().addingTimeInterval(30)
        while !((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Capturing on"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let client = RebasedTransport(base: server.baseURL, inner: CurlTransport(timeout: .seconds(10)))
        let early = try await client.send(
            HTTPRequest(
                method: .get, url: "/mobile/1/appinstance/never-registered/user",
                headerFields: ["Authorization": "App conform-app-code", "pushregistrationid": "never-registered"]))
        #expect(early.status.code >= 400)
        let registration = try await client.send(
            HTTPRequest(
                method: .post, url: "/mobile/1/appinstance?ri=true",
                headerFields: ["Authorization": "App conform-app-code", "Content-Type": "application/json"],
                body: Data(#"{"pushServiceToken":"tok-check","pushServiceType":"Firebase","os":"Android"}"#.utf8)))
        #expect(registration.status.code == 200)
        #expect(try await status == 1, "a violation: the capture does not conform")
        let err = try String(contentsOf: errors, encoding: .utf8)
        #expect(
            err.contains("violation: ") && err.contains("registration-first")
                && err.contains("before any registration"), "\(err)")
        let json = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(json["command"]?.stringValue == "check")
        let steps = json["suites"]?.arrayValue?.flatMap { $0["steps"]?.arrayValue ?? [] } ?? []
        let rule = steps.first { $0["name"]?.stringValue?.hasPrefix("registration-first") == true }
        #expect(rule?["verdict"]?.stringValue == "fail")
        #expect(rule?["record"]?.stringValue == scratch.path("live") + "#1", "located at the first exchange")
    }
}
