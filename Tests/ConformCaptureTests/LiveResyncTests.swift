import ConformCapture
import ConformCore
import ConformReference
import ConformServer
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

/// `conform capture --resync` on `lo` while a connection opened before it is used: its exchanges are recorded,
/// marked, as `import --resync` reads them.
@Suite(.enabled(if: canCaptureLive, "needs CAP_NET_RAW on lo"))
struct LiveResyncTests {
    @Test(.timeLimit(.minutes(1)))
    func aConnectionOpenBeforeALiveCaptureIsRecordedWithResync() async throws {
        let scratch = try Scratch("capture-live-resync")
        let server = try HTTPServer(handler: ReferenceImplementation())
        try server.start()
        defer { server.stop() }
        let port = server.boundPort
        let client = try RawClient(port: port)
        func get(_ n: Int) -> String {
            "GET /mobile/1/appinstance/live-\(n)/user HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                + "Authorization: App conform-app-code\r\npushregistrationid: live-\(n)\r\n\r\n"
        }
        try #require(LoopbackCaptureTests.exchange(client, get(0)).hasPrefix("HTTP/1.1 "))
        let out = scratch.path("live")
        let log = scratch.url.appendingPathComponent("capture.log")
        async let status = ChildProcess.run(
            TestPaths.conformBinary.path,
            [
                "capture", "--interface", "lo", "--port", String(port), "--out", out, "--duration", "8s", "--resync",
                "--no-redact",
            ], log: log)
        // Until the capture says it listens (at most 20 s).
        let deadline = Date().addingTimeInterval(20)
        var started = false
        while !started, Date() < deadline {
            started = (try? String(contentsOf: log, encoding: .utf8))?.contains("Capturing on lo") ?? false
            if !started { try await Task.sleep(for: .milliseconds(20)) }
        }
        for n in 1...2 { _ = LoopbackCaptureTests.exchange(client, get(n)) }
        let code = try await status
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        try #require(started, "\(output)")
        #expect(code == 0, "\(output)")
        #expect(output.contains("Captured 2 exchanges into \(out)"), "\(output)")
        #expect(output.contains("  2 exchanges resynchronised in stream 1 127.0.0.1:"), "\(output)")
        let recorded = try exchanges(in: out)
        #expect(
            recorded.map(\.request.url) == ["/mobile/1/appinstance/live-1/user", "/mobile/1/appinstance/live-2/user"])
        #expect(recorded.allSatisfy { $0.resynchronised })
    }
}
