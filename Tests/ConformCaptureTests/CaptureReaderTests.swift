import ConformCapture
import ConformCore
import ConformFuzzTargets
import Foundation
import Testing

/// Builds pcap files in memory: one TCP connection's packets over a chosen link type, IPv4 or IPv6.
struct PcapBuilder {
    var linkType: UInt32
    var ipv6 = false
    var bytes: [UInt8] = []
    var time: UInt32 = 1_800_000_000
    /// Seconds of capture time between packets.
    var tick: UInt32 = 1

    init(linkType: Int32, ipv6: Bool = false) {
        self.linkType = UInt32(linkType)
        self.ipv6 = ipv6
        bytes = le32(0xA1B2_C3D4) + le16(2) + le16(4) + le32(0) + le32(0) + le32(262_144) + le32(self.linkType)
    }

    func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
    func le16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
    func be32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
    func be16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }

    mutating func segment(
        fromClient: Bool, seq: UInt32, ack: UInt32, flags: UInt8, _ payload: [UInt8] = [], clientPort: UInt16 = 40_000
    ) {
        let ports = fromClient ? (clientPort, UInt16(8080)) : (UInt16(8080), clientPort)
        let tcp =
            be16(ports.0) + be16(ports.1) + be32(seq) + be32(ack) + [0x50, flags] + be16(65535) + [0, 0, 0, 0]
            + payload
        let ip: [UInt8]
        if ipv6 {
            let a = [UInt8](repeating: 0, count: 15) + [1]
            let b = [UInt8](repeating: 0, count: 15) + [2]
            ip = [0x60, 0, 0, 0] + be16(UInt16(tcp.count)) + [6, 64] + (fromClient ? a + b : b + a) + tcp
        } else {
            let a: [UInt8] = [10, 0, 0, 1]
            let b: [UInt8] = [10, 0, 0, 2]
            ip =
                [0x45, 0] + be16(UInt16(20 + tcp.count)) + [0, 0, 0x40, 0, 64, 6, 0, 0] + (fromClient ? a + b : b + a)
                + tcp
        }
        let ethertype: UInt16 = ipv6 ? 0x86DD : 0x0800
        let frame: [UInt8]
        switch Int32(linkType) {
        case PacketDecoder.LinkType.ethernet: frame = [UInt8](repeating: 0, count: 12) + be16(ethertype) + ip
        case PacketDecoder.LinkType.linuxCooked:
            frame = be16(0) + be16(772) + be16(0) + [UInt8](repeating: 0, count: 8) + be16(ethertype) + ip
        case PacketDecoder.LinkType.linuxCooked2:
            frame = be16(ethertype) + be16(0) + be32(1) + be16(772) + [0, 0] + [UInt8](repeating: 0, count: 8) + ip
        case PacketDecoder.LinkType.null: frame = le32(ipv6 ? 10 : 2) + ip
        case PacketDecoder.LinkType.loop: frame = be32(ipv6 ? 30 : 2) + ip
        default: frame = ip
        }
        time += tick
        bytes += le32(time) + le32(0) + le32(UInt32(frame.count)) + le32(UInt32(frame.count)) + frame
    }

    /// A connection with a handshake, the client's bytes in `requests` and the server's in `responses`, then FINs.
    static func connection(linkType: Int32, ipv6: Bool = false, requests: [String], responses: [String]) -> [UInt8] {
        var b = PcapBuilder(linkType: linkType, ipv6: ipv6)
        var c: UInt32 = 1000
        var s: UInt32 = 5000
        b.segment(fromClient: true, seq: c, ack: 0, flags: TCPSegment.syn)
        b.segment(fromClient: false, seq: s, ack: c + 1, flags: TCPSegment.syn | TCPSegment.ack)
        c += 1
        s += 1
        for (request, response) in zip(requests, responses) {
            let q = Array(request.utf8)
            let r = Array(response.utf8)
            b.segment(fromClient: true, seq: c, ack: s, flags: TCPSegment.ack, q)
            c += UInt32(q.count)
            b.segment(fromClient: false, seq: s, ack: c, flags: TCPSegment.ack, r)
            s += UInt32(r.count)
        }
        b.segment(fromClient: true, seq: c, ack: s, flags: TCPSegment.fin | TCPSegment.ack)
        b.segment(fromClient: false, seq: s, ack: c + 1, flags: TCPSegment.fin | TCPSegment.ack)
        return b.bytes
    }
}

/// Reads every packet of `bytes` and returns the exchanges and the summary.
func read(_ bytes: [UInt8], options: CaptureOptions = CaptureOptions()) throws -> ([CapturedExchange], CaptureSummary) {
    let source = try PacketSource(bytes: bytes)
    var out: [CapturedExchange] = []
    let reader = CaptureReader(options: options) { out.append($0) }
    while try source.next({ reader.consume(time: $0, linkType: source.linkType, $1) }) == .packet {}
    return (out, reader.finish())
}

@Suite struct CaptureReaderTests {
    static let get = "GET /mobile/1/appinstance/abc/user HTTP/1.1\r\nHost: h\r\npushregistrationid: abc\r\n\r\n"
    static let ok = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"

    @Test(arguments: [
        (PacketDecoder.LinkType.ethernet, false), (PacketDecoder.LinkType.ethernet, true),
        (PacketDecoder.LinkType.linuxCooked, false), (PacketDecoder.LinkType.linuxCooked2, true),
        (PacketDecoder.LinkType.null, false), (PacketDecoder.LinkType.loop, true), (PacketDecoder.LinkType.raw, false),
    ])
    func everyLinkTypeAndIPVersion(linkType: Int32, ipv6: Bool) throws {
        let bytes = PcapBuilder.connection(linkType: linkType, ipv6: ipv6, requests: [Self.get], responses: [Self.ok])
        let (exchanges, summary) = try read(bytes)
        #expect(exchanges.count == 1)
        #expect(exchanges.first?.request.url == "/mobile/1/appinstance/abc/user")
        #expect(exchanges.first?.response.body == Data(#"{"ok":true}"#.utf8))
        #expect(exchanges.first?.server.port == 8080)
        #expect(exchanges.first?.durationMs == 1000, "one second between the request's and the response's packet")
        #expect(summary.problemStreams.isEmpty)
    }

    @Test func pipelinedKeepAliveChunkedAndHead() throws {
        let requests = [
            Self.get + "HEAD /x HTTP/1.1\r\nHost: h\r\n\r\n",
            "POST /mobile/1/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n",
        ]
        let responses = [
            Self.ok + "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n",
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
                + "4\r\nwxyz\r\n0\r\nX-Trailer: 1\r\n\r\n",
        ]
        let (exchanges, summary) = try read(
            PcapBuilder.connection(linkType: PacketDecoder.LinkType.ethernet, requests: requests, responses: responses))
        #expect(exchanges.map(\.request.method.rawValue) == ["GET", "HEAD", "POST"])
        #expect(exchanges[1].response.body.isEmpty, "a HEAD response has no body whatever Content-Length says")
        #expect(exchanges[2].request.body == Data("abcde".utf8))
        #expect(exchanges[2].response.status.code == 201)
        #expect(exchanges[2].response.body == Data("wxyz".utf8))
        #expect(exchanges[2].response.headerFields["Transfer-Encoding"] == nil)
        #expect(exchanges[2].response.headerFields["Connection"] == nil)
        #expect(summary.problemStreams.isEmpty, "\(summary.lines)")
    }

    @Test func http2AndNonHTTPAreReportedPerStream() throws {
        let preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
        let (none, summary) = try read(
            PcapBuilder.connection(linkType: PacketDecoder.LinkType.ethernet, requests: [preface], responses: ["x"]))
        #expect(none.isEmpty)
        #expect(summary.problemStreams.first?.problems.map(\.kind) == [.http2])
        let (garbage, other) = try read(
            PcapBuilder.connection(
                linkType: PacketDecoder.LinkType.ethernet, requests: ["SSH-2.0-OpenSSH\r\n\r\n"], responses: ["x"]))
        #expect(garbage.isEmpty)
        #expect(other.problemStreams.first?.problems.map(\.kind) == [.notHTTP])
    }

    @Test func aStreamWithoutItsStartIsReportedNotGuessed() throws {
        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        b.segment(fromClient: true, seq: 77, ack: 99, flags: TCPSegment.ack, Array(Self.get.utf8))
        b.segment(
            fromClient: false, seq: 99, ack: 77 + UInt32(Self.get.utf8.count), flags: TCPSegment.ack,
            Array(Self.ok.utf8))
        let (exchanges, summary) = try read(b.bytes, options: CaptureOptions(ports: [8080]))
        #expect(exchanges.isEmpty)
        #expect(summary.streamsMissingStart == 1)
        #expect(summary.problemStreams.first?.server.port == 8080)
        #expect(summary.problemStreams.first?.problems.map(\.kind) == [.missingStart])
    }

    @Test func portsSelectTheServerSide() throws {
        let bytes = PcapBuilder.connection(
            linkType: PacketDecoder.LinkType.ethernet, requests: [Self.get], responses: [Self.ok])
        #expect(try read(bytes, options: CaptureOptions(ports: [9090])).0.isEmpty)
        #expect(try read(bytes, options: CaptureOptions(ports: [8080])).0.count == 1)
        let named = CaptureOptions(upstreams: [Endpoint(address: IPAddress("10.0.0.2")!, port: 8080): "gateway"])
        #expect(try read(bytes, options: named).0.first?.upstream == "gateway")
    }

    @Test func aBodyOverTheLimitStopsTheStream() throws {
        var options = CaptureOptions()
        options.limits.maxMessageBytes = 4
        let (exchanges, summary) = try read(
            PcapBuilder.connection(
                linkType: PacketDecoder.LinkType.ethernet, requests: [Self.get], responses: [Self.ok]),
            options: options)
        #expect(exchanges.isEmpty)
        #expect(summary.problemStreams.first?.problems.map(\.kind) == [.overLimit])
        #expect(summary.problemStreams.first?.unanswered == 1)
    }

    @Test func textAddresses() {
        #expect(IPAddress("127.0.0.1")?.description == "127.0.0.1")
        #expect(IPAddress("::1")?.description == "::1")
        #expect(IPAddress("[2001:db8::5:0:1]")?.description == "2001:db8::5:0:1")
        #expect(IPAddress("1.2.3") == nil)
        #expect(IPAddress("example.com") == nil)
        #expect(CaptureFormat.looksLikeCapture([0xD4, 0xC3, 0xB2, 0xA1, 2, 0]))
        #expect(CaptureFormat.looksLikeCapture([0x0A, 0x0D, 0x0D, 0x0A]))
        #expect(!CaptureFormat.looksLikeCapture(Array(#"{"log":"#.utf8)))
    }

    @Test func notACapture() {
        #expect(throws: CaptureError.self) { try PacketSource(bytes: Array("hello world, no pcap".utf8)) }
    }

    @Test func fuzzTargetsRunOnTheirSeeds() throws {
        let run = try #require(FuzzTargets.all["pcap"])
        run(
            Data(
                PcapBuilder.connection(
                    linkType: PacketDecoder.LinkType.ethernet, requests: [Self.get], responses: [Self.ok])))
        let reassembly = try #require(FuzzTargets.all["reassembly"])
        reassembly(Data([0, 0, 0, 3] + Array("GET".utf8)))
    }
}

/// What a live capture asks the kernel for: TCP, on the chosen ports when there are some, and the user's filter.
@Suite struct KernelFilterTests {
    @Test func portsAndTheUsersFilterAreAllRequired() {
        var options = CaptureOptions(profile: .none)
        #expect(options.kernelFilter(adding: nil) == "tcp")
        options.ports = [9090, 8080]
        #expect(options.kernelFilter(adding: nil) == "tcp and (port 8080 or port 9090)")
        #expect(
            options.kernelFilter(adding: "host 10.0.0.5 or host ::1")
                == "tcp and (port 8080 or port 9090) and (host 10.0.0.5 or host ::1)")
    }
}
