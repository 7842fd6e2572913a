import ConformCapture
import ConformCore
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

/// A capture of a protocol that is not Mobile Messaging is read and imported with that protocol's profile alone: its
/// bases name the upstreams, its session ids the flows.
@Suite struct TinyProfileCaptureTests {
    /// Sessions under `/api/`, opened by `POST /api/v1/sessions` (the answer's `sessionId`), and an admin base for the
    /// rest whose calls belong to no session.
    static let profile = ProtocolProfile(
        name: "Tiny",
        bases: [.init(name: "api", referenceURL: "", pathPrefixes: ["/api/"]), .init(name: "admin", referenceURL: "")],
        flows: .init(
            pathTemplates: ["/api/*/sessions/{id}"], answerMember: "sessionId", sharedPathPrefixes: ["/admin/"],
            sharedFlow: "admin"))

    static func response(_ body: String) -> String {
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    static let capture = PcapBuilder.connection(
        linkType: PacketDecoder.LinkType.ethernet,
        requests: [
            "POST /api/v1/sessions HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n",
            "GET /api/v1/sessions/s-7 HTTP/1.1\r\nHost: t\r\n\r\n", "GET /admin/stats HTTP/1.1\r\nHost: t\r\n\r\n",
        ],
        responses: [response(#"{"sessionId":"s-7"}"#), response(#"{"open":true}"#), response(#"{"sessions":1}"#)])

    @Test func theReaderNamesUpstreamsByTheProfilesBases() throws {
        let (tiny, summary) = try read(Self.capture, options: CaptureOptions(profile: Self.profile))
        #expect(summary.problemStreams.isEmpty)
        #expect(tiny.map(\.upstream) == ["api", "api", "admin"])
        let (neutral, _) = try read(Self.capture)
        #expect(neutral.map(\.upstream) == ["*", "*", "*"])
    }

    @Test func anImportNamesFlowsByTheProfilesIds() throws {
        let scratch = try Scratch("capture-tiny")
        let out = scratch.path("tiny")
        let writer = try RecordingWriter(
            directory: out, profile: Self.profile, redaction: RedactionPolicy(profile: Self.profile))
        let summary = try CaptureImport.run(
            source: try PacketSource(bytes: Self.capture), options: CaptureOptions(profile: Self.profile),
            writer: writer)
        writer.close()
        #expect(summary.exchanges == 3)
        let recorded = try exchanges(in: out)
        #expect(recorded.map(\.upstream) == ["api", "api", "admin"])
        #expect(recorded.map(\.flow) == ["s-7", "s-7", "admin"])
    }
}
