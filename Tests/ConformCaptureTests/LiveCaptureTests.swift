import ConformCapture
import ConformCore
import ConformCurl
import ConformMobileMessaging
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
            let writer = try RecordingWriter(directory: out, profile: .mobileMessaging, redaction: .disabled)
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
