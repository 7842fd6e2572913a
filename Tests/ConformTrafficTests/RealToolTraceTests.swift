import ConformCore
import ConformReport
import ConformTestSupport
import Foundation
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// HARs written by Playwright (Chromium) and mitmproxy (see scripts/fixtures/real-tool-hars.py), read whatever
/// their names and packaging, with what they lack marked instead of read as empty.
@Suite struct RealToolTraceTests {
    func open(_ name: String) throws -> [RecordedExchange] {
        let path = fixturePath("real/" + name)
        guard case .har(let data, let attachments) = try TraceFile.open(path) else {
            Issue.record("\(name) was not read as a HAR")
            return []
        }
        return try importedHAR(data, file: path, attachments: attachments)
    }

    @Test(arguments: ["playwright-embed.json", "playwright-embed.har.gz", "playwright-attach.zip"])
    func playwrightHARsReadTheSameWhateverTheirPackaging(_ name: String) throws {
        let all = try open(name)
        #expect(all.map(\.request.method) == [.get, .post, .get, .get])
        let registration = try JSONValue.parse(all[1].response.body)
        #expect(registration["pushRegId"] == "reg-0001")
        #expect(String(decoding: all[1].request.body, as: UTF8.self).contains("fcm-token-123456"))
        #expect(String(decoding: all[2].response.body, as: UTF8.self).contains("ana.kovac@mail.example.org"))
        #expect(all[1].response.headerFields["Content-Encoding"] == nil)
        #expect(all[1].response.headerFields[ContentDecoding.decodedHeader] == "gzip")
        #expect(all[0...2].allSatisfy { $0.omitted.isEmpty })
        // The request to a closed port failed: kept, with no response to judge.
        #expect(all[3].response.status == 0)
        #expect(all[3].omitted == ["response: none, the request failed (net::ERR_CONNECTION_REFUSED)"])
    }

    @Test func omittedBodiesAreMarkedNotReadAsEmpty() throws {
        let all = try open("playwright-omit.har")
        #expect(all.count == 4)
        #expect(all[1].omitted.contains("request.body: 68 bytes left out of the HAR"))
        #expect(
            all[1].omitted.contains { $0.hasPrefix("response.body: ") && $0.hasSuffix("bytes left out of the HAR") })
        #expect(all.allSatisfy { !$0.omitted.isEmpty })
    }

    @Test func mitmproxyZHARIsReadAndItsDecodedTextKept() throws {
        let all = try open("mitmproxy.zhar")
        #expect(all.count == 2)
        #expect(try JSONValue.parse(all[0].response.body)["pushRegId"] == "reg-0001")
        #expect(all[0].response.headerFields[ContentDecoding.decodedHeader] == "gzip")
        #expect(all[0].response.headerFields["Content-Length"] == String(all[0].response.body.count))
    }

    @Test func aRecordingNamedLikeAHARIsARecording() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/traffic.har"
        try exchange(url: "/mobile/1/x").jsonLine().write(toFile: file, atomically: true, encoding: .utf8)
        guard case .recording = try TraceFile.open(file) else {
            Issue.record("a recording named .har was read as a HAR")
            return
        }
        try Data("not a trace".utf8).write(to: URL(fileURLWithPath: dir + "/x.json"))
        #expect(throws: TraceFile.Failure.self) { try TraceFile.open(dir + "/x.json") }
    }

    @Test(arguments: [
        ("body.gz", "gzip"), ("body.zlib", "deflate"), ("body.deflate", "deflate"), ("body.br", "br"),
        ("body.zst", "zstd"),
    ])
    func encodedBodiesAreDecoded(_ name: String, _ coding: String) throws {
        let encoded = try Data(contentsOf: URL(fileURLWithPath: fixturePath("encoded/" + name)))
        let plain = try Data(contentsOf: URL(fileURLWithPath: fixturePath("encoded/body.json")))
        let decoded = ContentDecoding.decode(["Content-Encoding": coding, "Content-Length": "1"], encoded)
        #expect(decoded.problem == nil)
        #expect(decoded.body == plain)
        #expect(decoded.headerFields["Content-Length"] == String(plain.count))
        #expect(decoded.headerFields[ContentDecoding.decodedHeader] == coding)
    }

    @Test func undecodableBodiesAreLeftOutAndBombsStopped() throws {
        let unknown = ContentDecoding.decode(["Content-Encoding": "compress"], Data([0x1F, 0x9D, 0x90]))
        #expect(unknown.body.isEmpty)
        #expect(unknown.problem == "3 bytes in 'compress' encoding, which Conform cannot decode")
        let torn = ContentDecoding.decode(["Content-Encoding": "zstd"], Data([0x28, 0xB5, 0x2F, 0xFD, 0x00]))
        #expect(torn.body.isEmpty)
        #expect(torn.problem?.hasPrefix("5 bytes in 'zstd' encoding that do not decode") == true)
        let bomb = try Data(contentsOf: URL(fileURLWithPath: fixturePath("encoded/bomb.gz")))
        #expect(throws: Decompression.Failure.self) { try Decompression.inflate(bomb, limit: 1 << 20) }
        #expect(try Decompression.inflate(bomb, limit: 8 << 20).count == 8 << 20)
        #expect(throws: Decompression.Failure.self) { try Decompression.inflate(bomb.prefix(100)) }
        #expect(throws: Decompression.Failure.self) { try Decompression.inflate(Data()) }
        let zstdBomb = try Data(contentsOf: URL(fileURLWithPath: fixturePath("encoded/bomb.zst")))
        #expect(throws: Decompression.Failure.self) { try Decompression.zstd(zstdBomb, limit: 1 << 20) }
        #expect(try Decompression.zstd(zstdBomb, limit: 8 << 20) == Data(count: 8 << 20))
        #expect(throws: Decompression.Failure.self) { try Decompression.zstd(zstdBomb.prefix(100)) }
        let plain = try Data(contentsOf: URL(fileURLWithPath: fixturePath("encoded/body.zst")))
        #expect(throws: Decompression.Failure.self) { try Decompression.zstd(plain + Data([0x00, 0x01])) }
    }

    /// One implementation compresses and the other does not: `diff` compares what the application reads, so the
    /// two behave the same; a different body inside the compression is still a difference.
    @Test func differentialComparesDecodedBodies() async throws {
        struct Fixed: Transport {
            let response: HTTPResponse
            func send(_ request: HTTPRequest) async throws -> HTTPResponse { response }
        }
        let plain = try Data(contentsOf: URL(fileURLWithPath: fixturePath("encoded/body.json")))
        let zstd = try Data(contentsOf: URL(fileURLWithPath: fixturePath("encoded/body.zst")))
        let json: HTTPFields = ["Content-Type": "application/json"]
        let compressed = Fixed(
            response: HTTPResponse(
                status: 200, headerFields: ["Content-Type": "application/json", "Content-Encoding": "zstd"], body: zstd
            ))
        let recorded = [
            exchange(
                method: .get, url: "/mobile/1/appinstance/r/user", responseBody: String(decoding: plain, as: UTF8.self))
        ]
        let same = try await Differential(
            a: compressed, b: Fixed(response: HTTPResponse(status: 200, headerFields: json, body: plain))
        ).run(recorded)
        #expect(same.counts == [.pass: 1])
        let other = Data(
            String(decoding: plain, as: UTF8.self).replacingOccurrences(of: "cust-42", with: "cust-43").utf8)
        let differs = try await Differential(
            a: compressed, b: Fixed(response: HTTPResponse(status: 200, headerFields: json, body: other))
        ).run(recorded)
        #expect(differs.steps.first?.failures.first?.mismatches.map(\.path) == ["$.externalUserId"])
    }

    /// Behind a server that gzips, the recorder stores the decoded body, so redaction reaches what is inside.
    @Test func theRecorderDecodesBeforeRedacting() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gz = try Data(contentsOf: URL(fileURLWithPath: fixturePath("encoded/body.gz")))
        let writer = try RecordingWriter(directory: dir)
        try writer.append(
            upstream: "mobile", request: HTTPRequest(method: .get, url: "/mobile/1/appinstance/r/user"),
            response: HTTPResponse(status: 200, headerFields: ["Content-Encoding": "gzip"], body: gz),
            startedAt: Date(),
            durationMs: 1)
        writer.close()
        let text = try String(contentsOfFile: dir + "/exchanges.jsonl", encoding: .utf8)
        #expect(!text.contains("ana.kovac"))
        #expect(text.contains("@redacted.invalid"))
        #expect(text.contains(ContentDecoding.decodedHeader))
    }

    @Test(arguments: [Data("PK\u{3}\u{4}garbage".utf8), Data([0x1F, 0x8B, 0x08, 0x00, 0x01])])
    func damagedPackagingIsAClearError(_ bytes: Data) throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try bytes.write(to: URL(fileURLWithPath: dir + "/t.zip"))
        #expect(throws: TraceFile.Failure.self) { try TraceFile.open(dir + "/t.zip") }
    }
}
