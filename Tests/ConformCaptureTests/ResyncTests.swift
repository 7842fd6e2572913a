import ConformCapture
import ConformCore
import ConformFuzzTargets
import ConformTestSupport
import Foundation
import Testing

/// Streams the capture began inside (a pool of kept-alive connections open before tcpdump started) and streams
/// that lost bytes: reported without `resync`, read from their first whole request with it, and marked.
@Suite struct ResyncTests {
    static let get = CaptureReaderTests.get
    static func ok(_ body: String) -> String {
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// What goes on one kept-alive connection after the capture began: `clientTail` (the end of a request whose
    /// start was not captured) and `serverTail` (its response), then each request and its response in turn.
    static func midConnection(
        clientTail: String, serverTail: String, exchanges: [(String, String)], clientPort: UInt16 = 40_000,
        into builder: inout PcapBuilder
    ) {
        var c: UInt32 = 4_294_967_200  // wraps around during the stream
        var s: UInt32 = 77_777
        let tail = Array(clientTail.utf8)
        if !tail.isEmpty {
            builder.segment(fromClient: true, seq: c, ack: s, flags: TCPSegment.ack, tail, clientPort: clientPort)
            c &+= UInt32(tail.count)
        }
        let answer = Array(serverTail.utf8)
        if !answer.isEmpty {
            builder.segment(fromClient: false, seq: s, ack: c, flags: TCPSegment.ack, answer, clientPort: clientPort)
            s &+= UInt32(answer.count)
        }
        for (request, response) in exchanges {
            let q = Array(request.utf8)
            let r = Array(response.utf8)
            builder.segment(fromClient: true, seq: c, ack: s, flags: TCPSegment.ack, q, clientPort: clientPort)
            c &+= UInt32(q.count)
            builder.segment(fromClient: false, seq: s, ack: c, flags: TCPSegment.ack, r, clientPort: clientPort)
            s &+= UInt32(r.count)
        }
    }

    static let exchanges = [
        ("GET /mobile/1/a HTTP/1.1\r\nHost: h\r\n\r\n", ok(#"{"n":1}"#)),
        ("POST /mobile/1/b HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\n\r\n{\"x\":1}", ok(#"{"n":2}"#)),
        ("GET /mobile/1/c HTTP/1.1\r\nHost: h\r\n\r\n", ok(#"{"n":3}"#)),
    ]

    /// The capture began in the body of a request: its tail and its response come first.
    static func keptAlive() -> [UInt8] {
        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        midConnection(
            clientTail: "\"end\":true}", serverTail: ok(#"{"n":0}"#), exchanges: exchanges, into: &b)
        return b.bytes
    }

    @Test func withoutResyncAStreamWithoutItsStartIsReportedNumbered() throws {
        let (exchanges, summary) = try read(Self.keptAlive())
        #expect(exchanges.isEmpty)
        #expect(summary.streams == 1)
        #expect(summary.streamsMissingStart == 1)
        #expect(
            summary.problemStreams.map(\.description) == [
                "stream 1 10.0.0.1:40000 → 10.0.0.2:8080: 0 exchanges read; the capture began inside this stream "
                    + "(no SYN): not read, nothing guessed (--resync reads it from its first whole request)"
            ])
    }

    @Test func withResyncEveryWholeExchangeAfterTheFirstRequestLineIsReadAndMarked() throws {
        let (exchanges, summary) = try read(Self.keptAlive(), options: CaptureOptions(resync: true))
        #expect(exchanges.map(\.request.url) == ["/mobile/1/a", "/mobile/1/b", "/mobile/1/c"])
        #expect(
            exchanges.map { String(decoding: $0.response.body, as: UTF8.self) } == [
                #"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#,
            ])
        #expect(exchanges[1].request.body == Data(#"{"x":1}"#.utf8))
        #expect(exchanges.allSatisfy { $0.resynchronised })
        #expect(exchanges.allSatisfy { $0.stream == 1 && $0.server.port == 8080 })
        #expect(summary.exchanges == 3)
        #expect(summary.resynchronisedExchanges == 3)
        #expect(summary.problemStreams.isEmpty, "\(summary.lines)")
        let skipped = "\"end\":true}".utf8.count
        let response = Self.ok(#"{"n":0}"#).utf8.count
        #expect(
            summary.lines.contains(
                "3 exchanges resynchronised in stream 1 10.0.0.1:40000 → 10.0.0.2:8080: the capture began inside it "
                    + "(no SYN); \(skipped) bytes from the client and \(response) from the server skipped to the first "
                    + "whole request and its response"), "\(summary.lines)")
    }

    /// The capture began between a request and its response: that response comes first, before any request, and
    /// is not taken for the answer to the next one.
    @Test func aResponseWhoseRequestWasNotCapturedIsNotPairedWithTheNext() throws {
        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        Self.midConnection(clientTail: "", serverTail: Self.ok(#"{"n":0}"#), exchanges: Self.exchanges, into: &b)
        let (exchanges, summary) = try read(b.bytes, options: CaptureOptions(resync: true))
        #expect(
            exchanges.map { String(decoding: $0.response.body, as: UTF8.self) } == [
                #"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#,
            ])
        #expect(exchanges.first?.client.port == 40_000, "the sender of a status line is the server")
        #expect(summary.resynchronisedStreams.first?.skippedServerBytes == Self.ok(#"{"n":0}"#).utf8.count)
    }

    /// The capture began inside a body whose first line ends like a request line, and the server's first bytes are
    /// a status line sent before the first whole request: neither is taken.
    @Test func aMidBodyStartDoesNotMakeABogusExchange() throws {
        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        Self.midConnection(
            clientTail: "load\":\"GET /bogus HTTP/1.1\r\n\r\n-- end of an upload\r\n",
            serverTail: "HTTP/1.1 500 Not this one\r\nContent-Length: 0\r\n\r\n", exchanges: Self.exchanges, into: &b)
        let (exchanges, _) = try read(b.bytes, options: CaptureOptions(resync: true))
        #expect(exchanges.map(\.request.url) == ["/mobile/1/a", "/mobile/1/b", "/mobile/1/c"])
        #expect(exchanges.map(\.response.status.code) == [200, 200, 200])
    }

    /// With `resync`, a stream followed from its SYN is never scanned: a request line inside a body stays body.
    @Test func aBodyHoldingARequestLineStaysBodyInAStreamInSync() throws {
        let body = "GET /inner HTTP/1.1\r\nHost: h\r\n\r\n"
        let post = "POST /mobile/1/x HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let (exchanges, summary) = try read(
            PcapBuilder.connection(
                linkType: PacketDecoder.LinkType.ethernet, requests: [post], responses: [Self.ok("{}")]),
            options: CaptureOptions(resync: true))
        #expect(exchanges.map(\.request.url) == ["/mobile/1/x"])
        #expect(exchanges.first?.request.body == Data(body.utf8))
        #expect(exchanges.first?.resynchronised == false)
        #expect(summary.resynchronisedStreams.isEmpty)
    }

    /// Each stream of a pool the capture began inside is named by its own number and ends.
    @Test func streamsWithoutTheirStartAreNumberedAndNamedOneByOne() throws {
        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        for port in UInt16(40_000)..<40_003 {
            Self.midConnection(
                clientTail: "", serverTail: "", exchanges: [Self.exchanges[0]], clientPort: port, into: &b)
        }
        let (none, summary) = try read(b.bytes)
        #expect(none.isEmpty)
        #expect(
            summary.problemStreams.map { "\($0.number) \($0.client) → \($0.server)" } == [
                "1 10.0.0.1:40000 → 10.0.0.2:8080", "2 10.0.0.1:40001 → 10.0.0.2:8080",
                "3 10.0.0.1:40002 → 10.0.0.2:8080",
            ])
        let (read3, resynced) = try read(b.bytes, options: CaptureOptions(resync: true))
        #expect(read3.map(\.stream) == [1, 2, 3])
        #expect(resynced.resynchronisedStreams.map(\.number) == [1, 2, 3])
    }

    /// Resynchronising looks through a bounded number of bytes.
    @Test func resyncGivesUpAfterItsBound() throws {
        var options = CaptureOptions(resync: true)
        options.limits.maxResyncBytes = 100
        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        let junk = String(repeating: "not a request line\r\n", count: 6)  // 120 bytes
        Self.midConnection(clientTail: junk, serverTail: "", exchanges: Self.exchanges, into: &b)
        let (exchanges, summary) = try read(b.bytes, options: options)
        #expect(exchanges.isEmpty)
        #expect(
            summary.problemStreams.first?.problems.map(\.detail) == [
                "the capture began inside it (no SYN): no whole HTTP/1.x request line in the first 100 bytes from "
                    + "the client; not read"
            ])
        options.limits.maxResyncBytes = 120
        #expect(try read(b.bytes, options: options).0.count == 3)
    }

    /// A stream followed from its SYN that lost a request: without `resync` read up to the loss; with it, read on
    /// from the next whole request, whose response is not taken to be the lost request's.
    @Test func aGapIsResynchronisedAfter() throws {
        var options = CaptureOptions()
        options.limits.maxOutOfOrderBytes = 8
        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        var c: UInt32 = 1000
        var s: UInt32 = 5000
        b.segment(fromClient: true, seq: c, ack: 0, flags: TCPSegment.syn)
        b.segment(fromClient: false, seq: s, ack: c + 1, flags: TCPSegment.syn | TCPSegment.ack)
        c += 1
        s += 1
        for (i, (request, response)) in Self.exchanges.enumerated() {
            let q = Array(request.utf8)
            let r = Array(response.utf8)
            if i != 1 { b.segment(fromClient: true, seq: c, ack: s, flags: TCPSegment.ack, q) }  // the second is lost
            c += UInt32(q.count)
            b.segment(fromClient: false, seq: s, ack: c, flags: TCPSegment.ack, r)
            s += UInt32(r.count)
        }
        let (inSync, lost) = try read(b.bytes, options: options)
        #expect(inSync.map(\.request.url) == ["/mobile/1/a"])
        #expect(lost.problemStreams.first?.problems.map(\.kind) == [.lost])
        options.resync = true
        let (exchanges, summary) = try read(b.bytes, options: options)
        #expect(exchanges.map(\.request.url) == ["/mobile/1/a", "/mobile/1/c"])
        #expect(exchanges.map { String(decoding: $0.response.body, as: UTF8.self) } == [#"{"n":1}"#, #"{"n":3}"#])
        #expect(exchanges.map(\.resynchronised) == [false, true])
        #expect(summary.resynchronisedStreams.map(\.exchanges) == [1])
        #expect(
            summary.resynchronisedStreams.first?.reason
                == "segments from the client lost at byte \(Self.exchanges[0].0.utf8.count)")
    }
}

/// `conform import` of a capture of a connection pool opened before the capture: exit 2 and advice without
/// `--resync`, the exchanges marked with it; any import that reads nothing exits 2 and says what it saw.
@Suite struct ResyncImportCommandTests {
    static func importing(_ capture: [UInt8], _ extra: [String] = [], in scratch: Scratch) async throws -> (
        outcome: ChildProcess.Outcome, file: String, out: String
    ) {
        let file = scratch.path("pool.pcap")
        try Data(capture).write(to: URL(fileURLWithPath: file))
        let out = scratch.path("imported")
        let outcome = try await ChildProcess.output(
            TestPaths.conformBinary.path, ["import", file, "--out", out] + extra)
        return (outcome, file, out)
    }

    @Test(.timeLimit(.minutes(1)))
    func withoutResyncNothingReadIsExit2WithAdvice() async throws {
        let scratch = try Scratch("resync-import")
        let (outcome, file, out) = try await Self.importing(ResyncTests.keptAlive(), in: scratch)
        #expect(outcome.status == 2, "\(outcome.output)")
        #expect(outcome.output.contains("Imported 0 exchanges from \(file) into \(out)\n"), "\(outcome.output)")
        #expect(outcome.output.contains("  stream 1 10.0.0.1:40000 → 10.0.0.2:8080: 0 exchanges read; the capture"))
        #expect(
            outcome.output.contains(
                "\(file): error: no exchange read: 8 packets, 1 TCP stream, without its beginning (the capture "
                    + "started after the clients connected, as with a pool of kept-alive connections)"),
            "\(outcome.output)")
        #expect(
            outcome.output.contains(
                "help: pass --resync to read each from its first whole request, or start tcpdump before the clients "
                    + "connect (tcpdump -i lo --immediate-mode -U -w FILE 'tcp port 8080', stopped with Ctrl-C once "
                    + "they are done)"), "\(outcome.output)")
    }

    @Test(.timeLimit(.minutes(1)))
    func withResyncTheExchangesAreImportedAndMarked() async throws {
        let scratch = try Scratch("resync-import")
        let (outcome, file, out) = try await Self.importing(ResyncTests.keptAlive(), ["--resync"], in: scratch)
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("Imported 3 exchanges from \(file) into \(out)\n"), "\(outcome.output)")
        #expect(outcome.output.contains("  3 exchanges resynchronised in stream 1 10.0.0.1:40000 → 10.0.0.2:8080"))
        let written = try exchanges(in: out)
        #expect(written.map(\.request.url) == ["/mobile/1/a", "/mobile/1/b", "/mobile/1/c"])
        #expect(written.allSatisfy { $0.resynchronised })
        let text = try String(contentsOfFile: out + "/exchanges.jsonl", encoding: .utf8)
        #expect(text.components(separatedBy: #","resynchronised":true}"#).count == 4, "\(text)")
    }

    /// A capture whose only stream is no HTTP/1.1: nothing read, exit 2, and what was seen.
    @Test(.timeLimit(.minutes(1)))
    func anyImportThatReadsNothingIsExit2() async throws {
        let capture = PcapBuilder.connection(
            linkType: PacketDecoder.LinkType.ethernet, requests: ["SSH-2.0-OpenSSH\r\n\r\n"], responses: ["x"])
        let scratch = try Scratch("resync-import")
        let (outcome, file, _) = try await Self.importing(capture, in: scratch)
        #expect(outcome.status == 2, "\(outcome.output)")
        #expect(
            outcome.output.contains(
                "\(file): error: no exchange read: 6 packets, 1 TCP stream; none held a whole HTTP/1.1 request and "
                    + "its response"), "\(outcome.output)")
        #expect(outcome.output.contains("help: the lines above say why each stream was not read"))
        let (other, _, _) = try await Self.importing(capture, ["--port", "9090"], in: scratch)
        #expect(other.status == 2)
        #expect(other.output.contains("error: no exchange read: 6 packets, 0 TCP streams to or from port 9090"))
    }
}

extension ResyncTests {
    /// The capture began inside a body whose text holds whole request lines: each is taken first and given up
    /// when what follows it is no HTTP (a header line without a colon; after a whole head, bytes that are no
    /// request), so the response to the upload is not paired with one, and the requests after are read.
    @Test func requestLinesInsideABodyAtTheStartAreGivenUp() throws {
        let tail = "GET /bogus HTTP/1.1\r\nnot a header\r\n\r\nGET /bogus2 HTTP/1.1\r\nX: 1\r\n\r\n-- end --\r\n"
        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        Self.midConnection(
            clientTail: tail, serverTail: "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}",
            exchanges: Self.exchanges, into: &b)
        let (exchanges, summary) = try read(b.bytes, options: CaptureOptions(resync: true))
        #expect(exchanges.map(\.request.url) == ["/mobile/1/a", "/mobile/1/b", "/mobile/1/c"])
        #expect(exchanges.map(\.response.status.code) == [200, 200, 200])
        #expect(summary.problemStreams.isEmpty, "\(summary.lines)")
        #expect(summary.resynchronisedStreams.first?.skippedClientBytes == tail.utf8.count)
    }
}

extension ResyncTests {
    /// The fuzz target's seed of a stream the capture began inside runs through its checks (exchanges counted,
    /// memory and work bounded); its segments, read here, give the one whole exchange after the body's tail, not
    /// the 204 sent before the request.
    @Test func theReassemblyFuzzTargetReadsAStreamWithoutItsStart() throws {
        let seed = TestPaths.root.appendingPathComponent("fuzz/Corpus/reassembly/resync-began-inside")
        let data = [UInt8](try Data(contentsOf: seed))
        let run = try #require(FuzzTargets.all["reassembly"])
        run(Data(data))
        #expect(data.first == 0xC0, "resync, and no SYN")
        let client = Endpoint(address: IPAddress("127.0.0.1")!, port: 40_000)
        let server = Endpoint(address: IPAddress("127.0.0.1")!, port: 8080)
        var read: [CapturedExchange] = []
        let reader = CaptureReader(options: CaptureOptions(resync: true)) { read.append($0) }
        var i = 0
        var time = 0.0
        while i + 4 <= data.count {
            let fromServer = data[i] & 1 != 0
            let offset = UInt32(data[i + 1]) << 8 | UInt32(data[i + 2])
            let payload = Array(data[(i + 4)..<(i + 4 + Int(data[i + 3]))])
            i += 4 + payload.count
            time += 0.001
            reader.consume(
                TCPSegment(
                    source: fromServer ? server : client, destination: fromServer ? client : server,
                    sequence: (fromServer ? 7 : 0xFFFF_FF00) &+ 1 &+ offset,
                    acknowledgment: (fromServer ? 0xFFFF_FF00 : 7) &+ 1, flags: TCPSegment.ack, payload: payload),
                at: time)
        }
        let summary = reader.finish()
        #expect(read.map(\.request.url) == ["/mobile/1/a"])
        #expect(read.map(\.response.status.code) == [200])
        #expect(summary.resynchronisedExchanges == 1)
    }

    /// Lines taken for request lines that prove not to be are bounded: past ``ResyncScanner`` 16 of them the stream
    /// is given up, named.
    @Test func rejectedRequestLinesAreBounded() throws {
        let tail = String(repeating: "GET /x HTTP/1.1\r\nno colon\r\n", count: 17)
        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        Self.midConnection(clientTail: tail, serverTail: "", exchanges: Self.exchanges, into: &b)
        let (exchanges, summary) = try read(b.bytes, options: CaptureOptions(resync: true))
        #expect(exchanges.isEmpty)
        #expect(
            summary.problemStreams.first?.problems.map(\.detail) == ["the client sent a header line without a colon"])
        var shorter = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        Self.midConnection(
            clientTail: String(repeating: "GET /x HTTP/1.1\r\nno colon\r\n", count: 16), serverTail: "",
            exchanges: Self.exchanges, into: &shorter)
        #expect(try read(shorter.bytes, options: CaptureOptions(resync: true)).0.count == 3)
    }
}

extension ResyncTests {
    /// A stream that ended (here reset) is not started again by a segment after its end; a new connection on the
    /// same ports, with its SYN, is followed.
    @Test func aSegmentAfterTheEndDoesNotStartTheStreamAgain() throws {
        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        Self.midConnection(clientTail: "", serverTail: "", exchanges: [Self.exchanges[0]], into: &b)
        b.segment(fromClient: true, seq: 1, ack: 1, flags: TCPSegment.rst | TCPSegment.ack)
        b.segment(fromClient: false, seq: 99_999, ack: 1, flags: TCPSegment.ack, Array(Self.ok("{}").utf8))
        let again = PcapBuilder.connection(
            linkType: PacketDecoder.LinkType.ethernet, requests: [Self.exchanges[2].0], responses: [Self.ok("{}")])
        b.bytes += again.dropFirst(24)  // its packets, without the file header
        let (exchanges, summary) = try read(b.bytes, options: CaptureOptions(resync: true))
        #expect(exchanges.map(\.request.url) == ["/mobile/1/a", "/mobile/1/c"])
        #expect(exchanges.map(\.resynchronised) == [true, false])
        #expect(summary.streams == 2)
        #expect(summary.problemStreams.isEmpty, "\(summary.lines)")
    }
}
