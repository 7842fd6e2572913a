import ConformCapture
import ConformTestSupport
import Foundation
import Testing

/// `conform import` of a capture where 10,000 bare SYNs fill the table of followed streams and a real exchange
/// follows two minutes later (before the SYNs' streams go idle): the exchange is imported.
@Suite struct SYNFloodImportTests {
    @Test(.timeLimit(.minutes(2)))
    func anExchangeAfterASYNFloodIsImported() async throws {
        let scratch = try Scratch("syn-flood")
        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        b.tick = 0
        for port in UInt16(1024)..<UInt16(11_024) {
            b.segment(fromClient: true, seq: UInt32(port), ack: 0, flags: TCPSegment.syn, clientPort: port)
        }
        b.time += 120
        b.tick = 1
        let request = Array(CaptureReaderTests.get.utf8)
        let response = Array(CaptureReaderTests.ok.utf8)
        b.segment(fromClient: true, seq: 1000, ack: 0, flags: TCPSegment.syn)
        b.segment(fromClient: false, seq: 5000, ack: 1001, flags: TCPSegment.syn | TCPSegment.ack)
        b.segment(fromClient: true, seq: 1001, ack: 5001, flags: TCPSegment.ack, request)
        let c = 1001 + UInt32(request.count)
        b.segment(fromClient: false, seq: 5001, ack: c, flags: TCPSegment.ack, response)
        let s = 5001 + UInt32(response.count)
        b.segment(fromClient: true, seq: c, ack: s, flags: TCPSegment.fin | TCPSegment.ack)
        b.segment(fromClient: false, seq: s, ack: c + 1, flags: TCPSegment.fin | TCPSegment.ack)
        let capture = scratch.path("flood.pcap")
        try Data(b.bytes).write(to: URL(fileURLWithPath: capture))
        let out = scratch.path("imported")
        let outcome = try await ChildProcess.output(TestPaths.conformBinary.path, ["import", capture, "--out", out])
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("10006 packets, 10001 TCP streams, 1 exchange"), "\(outcome.output)")
        #expect(outcome.output.contains("1 half-open streams (SYN, no data) given up to follow newer ones"))
        #expect(try exchanges(in: out).map(\.request.url) == ["/mobile/1/appinstance/abc/user"])
    }
}
