import ConformTestSupport
import Foundation
import Testing

/// `conform import` tells a packet capture from a HAR by its first bytes, and `conform capture` says clearly what
/// it cannot do.
@Suite struct CaptureCommandTests {
    static let seed = TestPaths.root.appendingPathComponent("fuzz/Corpus/pcap/ethernet-chunked").path

    @Test func importOfAPcapWritesARecordingAndASummary() async throws {
        let scratch = try Scratch("capture-cli")
        let out = scratch.path("recording")
        let result = await conformInProcess(["import", Self.seed, "--out", out, "--port", "8080"])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.hasPrefix("Imported 1 exchange from \(Self.seed) into \(out)\n"))
        #expect(result.out.contains("4 packets, 1 TCP stream, 1 exchange"))
        let line = try String(contentsOfFile: out + "/exchanges.jsonl", encoding: .utf8)
        #expect(line.contains(#""url":"/mobile/1/appinstance/abc/user""#))
        #expect(line.contains(#""body":"{}""#))
    }

    @Test func captureOptionsOnAHARAreAUsageError() async throws {
        let scratch = try Scratch("capture-cli")
        let har = scratch.path("a.har")
        try Data(#"{"log":{"entries":[]}}"#.utf8).write(to: URL(fileURLWithPath: har))
        let result = await conformInProcess(["import", har, "--out", scratch.path("r"), "--port", "80"])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("Error: --port is for packet captures; \(har) is not one\n"))
    }

    @Test func anUpstreamMustNameAnAddress() async throws {
        let scratch = try Scratch("capture-cli")
        let result = await conformInProcess([
            "import", Self.seed, "--out", scratch.path("r"), "--upstream", "mobile=broker.internal:8080",
        ])
        #expect(result.code == 64)
        #expect(result.err.contains("--upstream takes NAME=ADDRESS:PORT with an IP address"))
    }

    @Test func captureOnAnInterfaceThatDoesNotExist() async throws {
        let scratch = try Scratch("capture-cli")
        let result = await conformInProcess([
            "capture", "--interface", "conform-none0", "--port", "8080", "--out", scratch.path("r"),
        ])
        #expect(result.code == 2)
        #expect(result.err.contains("conform-none0"), "\(result.err)")
    }
}
