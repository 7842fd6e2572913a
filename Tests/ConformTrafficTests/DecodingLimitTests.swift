import ConformCore
import ConformTestSupport
import Foundation
import Testing

@testable import ConformTraffic

/// Decoding a body stops at the largest body a recording keeps: a small bomb never costs more than that cap, and the
/// body is left out and named instead.
@Suite struct DecodingLimitTests {
    static var bomb: Data { get throws { try Data(contentsOf: URL(fileURLWithPath: fixturePath("encoded/bomb.gz"))) } }
    static var zstdBomb: Data {
        get throws { try Data(contentsOf: URL(fileURLWithPath: fixturePath("encoded/bomb.zst"))) }
    }

    @Test func theCapIsTheLargestBodyARecordingKeeps() {
        #expect(ContentDecoding.defaultLimit == RecordingLayout.maxLineBytes)
        #expect(ContentDecoding.defaultLimit < Decompression.defaultLimit)
    }

    /// Each decoder stops at its cap (8 MiB of zeros asked to fit in 1 MiB) and says it was the cap, not bad data.
    @Test func everyDecoderStopsAtTheCapAndSaysSo() throws {
        for decode in [
            { try Decompression.inflate(try Self.bomb, limit: 1 << 20) },
            { try Decompression.zstd(try Self.zstdBomb, limit: 1 << 20) },
        ] as [() throws -> Data] {
            do {
                _ = try decode()
                Issue.record("a bomb decoded past its cap")
            } catch let failure as Decompression.Failure {
                #expect(failure.overLimit)
                #expect(failure.message == "decompresses to more than 1048576 bytes")
            }
        }
        // At the cap exactly, the whole body.
        #expect(try Decompression.inflate(try Self.bomb, limit: 8 << 20).count == 8 << 20)
        // Bad data is not a limit.
        do {
            _ = try Decompression.inflate(Data([0x1F, 0x8B, 0x08, 0x00, 0xFF, 0xFF]), limit: 1 << 20)
        } catch let failure as Decompression.Failure {
            #expect(!failure.overLimit)
        }
    }

    @Test(arguments: ["gzip", "deflate", "zstd"])
    func aBombBodyIsLeftOutAtTheCap(coding: String) throws {
        let body = coding == "zstd" ? try Self.zstdBomb : try Self.bomb
        let decoded = ContentDecoding.decode(["Content-Encoding": coding], body, limit: 1 << 20)
        #expect(decoded.body.isEmpty)
        #expect(
            decoded.problem
                == "\(body.count) bytes in '\(coding)' encoding that decode to more than 1048576 bytes, more than a "
                + "recording keeps; decoding stopped there")
    }

    /// The writer behind `record` and `import` decodes with its own line limit as the cap: the exchange is written
    /// with the body left out and the reason in `omitted`.
    @Test func theWriterDecodesNoMoreThanItsLineLimit() throws {
        let scratch = try Scratch("decoding-limit")
        let writer = try RecordingWriter(
            directory: scratch.path("r"), redaction: .disabled, maxLineBytes: 1 << 20)
        let written = try writer.append(
            upstream: "mobile", request: HTTPRequest(method: .get, url: "/mobile/1/x"),
            response: HTTPResponse(status: 200, headerFields: ["Content-Encoding": "gzip"], body: try Self.bomb),
            startedAt: Date(), durationMs: 1)
        writer.close()
        #expect(written.response.body.isEmpty)
        #expect(
            written.omitted == [
                "response.body: \(try Self.bomb.count) bytes in 'gzip' encoding that decode to more than 1048576 "
                    + "bytes, more than a recording keeps; decoding stopped there"
            ])
        #expect(try readAll(scratch.path("r")).first?.omitted == written.omitted)
    }

    /// What a body takes in a line is counted before the line is built, exactly as it is written: a body whose
    /// escaped text alone passes the limit is left out with the same note as when the built line was measured.
    @Test func aBodyThatCannotFitIsLeftOutBeforeTheLineIsBuilt() throws {
        let zeros = Data(count: 1000)  // 6,000 bytes escaped
        let quotes = Data(repeating: UInt8(ascii: "\""), count: 2500)  // 5,000 escaped, 2,500 as they are
        let binary = Data([0xFF, 0xFE, 0x00])  // base64
        #expect(RecordedExchange.encodedBytes(zeros) == 11 + 6000)
        #expect(RecordedExchange.encodedBytes(quotes) == 11 + 5000)
        #expect(RecordedExchange.encodedBytes(binary) == 4 + 16)
        for (body, text) in [(zeros, "x"), (quotes, "x")] {
            let exchange = RecordedExchange(
                seq: 1, flow: "f", upstream: "mobile", startedAt: Date(timeIntervalSince1970: 0), durationMs: 1,
                request: HTTPRequest(method: .post, url: "/mobile/1/x", body: Data(text.utf8)),
                response: HTTPResponse(status: 200, body: body))
            let whole = exchange.jsonLine()
            let line = exchange.boundedJSONLine(limit: 4096)
            #expect(line.utf8.count <= 4096)
            #expect(line.contains("response.body: \(body.count) bytes, over the recording line limit of 4096"))
            #expect(line.contains(#""body":"x""#), "the request's body still fits")
            // With room for it, the body is kept as it is written.
            #expect(exchange.boundedJSONLine(limit: whole.utf8.count) == whole)
        }
    }
}
