import ConformCapture
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

/// A response whose 1 MB gzip body inflates to 1 GiB, imported from a capture by the built binary: decoding stops at
/// the largest body a recording keeps (64 MiB), the exchange is written with the body left out and named, and the
/// import's peak memory stays near that cap (it was 1.06 GB when decoding went on to the 1 GiB limit).
@Suite struct DecodingBombImportTests {
    @Test(
        .timeLimit(.minutes(3)),
        .enabled(
            if: Tool.has("python3") && FileManager.default.isExecutableFile(atPath: "/usr/bin/time"),
            "needs python3 (to make the bomb) and /usr/bin/time"))
    func aGzipBombCostsNoMoreThanTheCap() async throws {
        let scratch = try Scratch("decoding-bomb")
        let bombFile = scratch.path("bomb.gz")
        let made = try await shell(
            "python3 -c 'import zlib,sys\nc=zlib.compressobj(9,zlib.DEFLATED,31)\nz=bytes(1<<20)\n"
                + "sys.stdout.buffer.write(b\"\".join([c.compress(z) for _ in range(1024)]+[c.flush()]))' > \(bombFile)"
        )
        #expect(made.status == 0, "\(made.output)")
        let bomb = Array(try Data(contentsOf: URL(fileURLWithPath: bombFile)))
        #expect(bomb.count > 1_000_000 && bomb.count < 1_100_000)

        var b = PcapBuilder(linkType: PacketDecoder.LinkType.ethernet)
        var c: UInt32 = 1000
        var s: UInt32 = 5000
        b.segment(fromClient: true, seq: c, ack: 0, flags: TCPSegment.syn)
        b.segment(fromClient: false, seq: s, ack: c + 1, flags: TCPSegment.syn | TCPSegment.ack)
        c += 1
        s += 1
        let request = Array("GET /mobile/1/bomb HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        b.segment(fromClient: true, seq: c, ack: s, flags: TCPSegment.ack, request)
        c += UInt32(request.count)
        let response =
            Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(bomb.count)\r\n\r\n".utf8) + bomb
        var offset = 0
        while offset < response.count {
            let piece = Array(response[offset..<min(response.count, offset + 32_000)])
            b.segment(fromClient: false, seq: s, ack: c, flags: TCPSegment.ack, piece)
            s += UInt32(piece.count)
            offset += piece.count
        }
        b.segment(fromClient: true, seq: c, ack: s, flags: TCPSegment.fin | TCPSegment.ack)
        b.segment(fromClient: false, seq: s, ack: c + 1, flags: TCPSegment.fin | TCPSegment.ack)
        let capture = scratch.path("bomb.pcap")
        try Data(b.bytes).write(to: URL(fileURLWithPath: capture))

        let out = scratch.path("imported")
        let outcome = try await ChildProcess.output(
            "/usr/bin/time", ["-f", "peak-kb %M", TestPaths.conformBinary.path, "import", capture, "--out", out])
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("Imported 1 exchange from \(capture) into \(out)"), "\(outcome.output)")
        let line = try #require(outcome.output.split(separator: "\n").last { $0.hasPrefix("peak-kb ") })
        let peak = try #require(Int(line.dropFirst("peak-kb ".count)))
        #expect(peak < 400 * 1024, "import peaked at \(peak) kB")

        let written = try exchanges(in: out)
        #expect(written.count == 1)
        #expect(written.first?.response.body.isEmpty == true)
        #expect(
            written.first?.omitted == [
                "response.body: \(bomb.count) bytes in 'gzip' encoding that decode to more than "
                    + "\(ContentDecoding.defaultLimit) bytes, more than a recording keeps; decoding stopped there"
            ])
    }
}
