import ConformCapture
import ConformCore
import Foundation
import Testing

/// What a capture costs is what it holds: out-of-order segments are put back in order in n log n steps, a flood of
/// bare SYNs does not crowd out a later exchange, and overlapping copies are decided as tshark decides them.
@Suite struct ReassemblyCostTests {
    static let server = Endpoint(address: IPAddress("10.0.0.2")!, port: 8080)
    static let client = Endpoint(address: IPAddress("10.0.0.1")!, port: 40_000)
    static let clientStart: UInt32 = 0xFFFF_F000  // wraps around inside the stream
    static let serverStart: UInt32 = 7000
    static let ok = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)

    /// A reader fed one connection's handshake; `segment` sends the client's bytes at an offset.
    final class Connection {
        var exchanges: [CapturedExchange] = []
        var reader: CaptureReader!
        let client: Endpoint
        var time = 1_800_000_000.0

        init(options: CaptureOptions = CaptureOptions(), client: Endpoint = ReassemblyCostTests.client) {
            self.client = client
            reader = CaptureReader(options: options) { [unowned self] in self.exchanges.append($0) }
        }

        func syn() {
            send(
                TCPSegment(
                    source: client, destination: server, sequence: clientStart, acknowledgment: 0,
                    flags: TCPSegment.syn,
                    payload: []))
        }

        func synAck() {
            send(
                TCPSegment(
                    source: server, destination: client, sequence: serverStart, acknowledgment: clientStart &+ 1,
                    flags: TCPSegment.syn | TCPSegment.ack, payload: []))
        }

        func fromClient(_ offset: Int, _ bytes: ArraySlice<UInt8>) {
            send(
                TCPSegment(
                    source: client, destination: server, sequence: clientStart &+ 1 &+ UInt32(offset),
                    acknowledgment: serverStart &+ 1, flags: TCPSegment.ack, payload: Array(bytes)))
        }

        func fromServer(_ offset: Int, _ bytes: [UInt8], fin: Bool = false) {
            send(
                TCPSegment(
                    source: server, destination: client, sequence: serverStart &+ 1 &+ UInt32(offset),
                    acknowledgment: clientStart &+ 1, flags: TCPSegment.ack | (fin ? TCPSegment.fin : 0), payload: bytes
                ))
        }

        func send(_ segment: TCPSegment) {
            time += 0.001
            reader.consume(segment, at: time)
        }
    }

    var server: Endpoint { Self.server }

    /// 128,000 one-byte segments, last first: the old reassembly looked through every held segment for each one it
    /// delivered (n²/2 = 8.2 billion steps, 16.8 s); now each costs a few dozen steps of a balanced tree.
    @Test(arguments: ["reversed", "shuffled"])
    func oneByteSegmentsOutOfOrderCostNLogN(order: String) throws {
        let body = (0..<(128_000 - 60)).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        let head = Array("POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        let request = head + body
        let count = request.count
        var offsets = Array(0..<count)
        if order == "reversed" {
            offsets.reverse()
        } else {
            var generator = SplitMix64(seed: 33)
            offsets.shuffle(using: &generator)
        }
        let connection = Connection()
        connection.syn()
        connection.synAck()
        for offset in offsets { connection.fromClient(offset, request[offset..<(offset + 1)]) }
        connection.fromServer(0, Self.ok, fin: true)
        let summary = connection.reader.finish()
        #expect(connection.exchanges.count == 1)
        #expect(connection.exchanges.first?.request.body == Data(body))
        #expect(summary.lostBytes == 0)
        #expect(summary.reorderedSegments > count - 1_000)
        // n log n with a constant of a few dozen; a quadratic walk is thousands of times more.
        let log2n = Int(log2(Double(count)).rounded(.up))
        #expect(summary.reassemblySteps < count * log2n * 20, "\(summary.reassemblySteps) steps for \(count) segments")
        #expect(summary.reassemblySteps > count, "the counter counts")
    }

    /// A segment that repeats bytes already delivered, with other bytes: the first copy is read and the conflict is
    /// reported.
    @Test func aConflictingRetransmissionKeepsTheFirstCopy() throws {
        let connection = Connection()
        connection.syn()
        connection.synAck()
        let first = Array("GET /aaaa HTTP/1.1\r\nHost: h\r\n".utf8)
        connection.fromClient(0, first[...])
        connection.fromClient(0, Array("GET /bbbb HTTP/1.1\r\n".utf8)[...])  // overlaps with different bytes
        connection.fromClient(0, first[...])  // an identical retransmission is no conflict
        connection.fromClient(first.count, Array("\r\n".utf8)[...])
        connection.fromServer(0, Self.ok, fin: true)
        let summary = connection.reader.finish()
        #expect(connection.exchanges.map(\.request.url) == ["/aaaa"])
        #expect(summary.conflictingSegments == 1)
        #expect(summary.duplicateSegments == 2)
        #expect(summary.problemCounts["overlap-conflict"] == 1)
        #expect(
            summary.lines.contains(
                "1 overlapping segments carried bytes that differ from the first copy (the first copy was read, as "
                    + "tshark does)"))
        #expect(
            summary.problemStreams.first?.problems.map(\.detail) == [
                "1 segment from the client overlapped bytes seen before with different bytes (first at byte 0); "
                    + "the first copy was read, as tshark does"
            ])
    }

    /// The other order: bytes ahead arrive first and are held; a segment that covers them and the gap before them
    /// arrives next with other bytes. The held copy is read where they overlap, the new one where nothing was held.
    @Test func aConflictingSegmentOverHeldBytesKeepsTheHeldCopy() throws {
        let connection = Connection()
        connection.syn()
        connection.synAck()
        let request = Array("GET /aaaa HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        connection.fromClient(5, Array("aaaa".utf8)[...])  // held: /aaaa
        connection.fromClient(8, request[8...])  // overlaps the held piece by one byte, same byte
        connection.fromClient(0, Array("GET /bbbb HTTP/1.1\r\n".utf8)[...])  // gap filled, /bbbb over /aaaa
        connection.fromServer(0, Self.ok, fin: true)
        let summary = connection.reader.finish()
        #expect(connection.exchanges.map(\.request.url) == ["/aaaa"])
        #expect(summary.conflictingSegments == 1)
        #expect(summary.lostBytes == 0)
        #expect(summary.problemCounts["overlap-conflict"] == 1)
    }

    /// 10,000 bare SYNs fill the table of followed streams; a real exchange minutes later (before they go idle) is
    /// read: the oldest half-open stream is given up for it. Streams that carried data are never given up for a SYN.
    @Test func aSYNFloodDoesNotCrowdOutALaterExchange() throws {
        let connection = Connection(client: Endpoint(address: IPAddress("10.0.9.9")!, port: 50_000))
        for i in 0..<10_000 {
            let flooder = Endpoint(address: IPAddress(high: 0, low: 0x0A01_0000 + UInt64(i), isIPv6: false), port: 1024)
            connection.send(
                TCPSegment(
                    source: flooder, destination: Self.server, sequence: UInt32(i), acknowledgment: 0,
                    flags: TCPSegment.syn, payload: []))
        }
        connection.time += 120
        connection.syn()
        connection.synAck()
        connection.fromClient(0, Array("GET /after-the-flood HTTP/1.1\r\nHost: h\r\n\r\n".utf8)[...])
        connection.fromServer(0, Self.ok, fin: true)
        let summary = connection.reader.finish()
        #expect(connection.exchanges.map(\.request.url) == ["/after-the-flood"])
        #expect(summary.streams == 10_001)
        #expect(summary.halfOpenExpired == 1)
        #expect(summary.streamsRefused == 0)
        #expect(summary.lines.contains("1 half-open streams (SYN, no data) given up to follow newer ones"))

        // A full table of streams that all carried data: the new SYN is refused, none of them is dropped.
        var options = CaptureOptions()
        options.limits.maxStreams = 3
        let busy = Connection(options: options)
        for port in UInt16(1)...3 {
            let other = Endpoint(address: IPAddress("10.0.0.7")!, port: port)
            busy.send(
                TCPSegment(
                    source: other, destination: Self.server, sequence: 100, acknowledgment: 0, flags: TCPSegment.syn,
                    payload: []))
            busy.send(
                TCPSegment(
                    source: other, destination: Self.server, sequence: 101, acknowledgment: 0, flags: TCPSegment.ack,
                    payload: Array("GET".utf8)))
        }
        busy.syn()
        let full = busy.reader.finish()
        #expect(full.streamsRefused == 1)
        #expect(full.halfOpenExpired == 0)
        #expect(full.streams == 3)
    }
}
