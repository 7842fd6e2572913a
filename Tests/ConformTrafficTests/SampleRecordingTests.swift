import ConformCore
import ConformMobileMessaging
import ConformReference
import Foundation
import Testing

@testable import ConformFlowCheck
@testable import ConformReplay
@testable import ConformTraffic

/// The redacted sample in `recordings/personalization-flow`, re-recorded only when `CONFORM_RECORD_GOLDENS=1`.
@Suite(.serialized) struct SampleRecordingTests {
    static func sampleDirectory(file: StaticString = #filePath) -> String {
        URL(fileURLWithPath: "\(file)").deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("recordings/personalization-flow").path
    }

    static let noiseYAML = """
        # Volatile values of the reference implementation: the send time of a synced push
        # (inside the GCM payload's embedded internalData JSON).
        ignore:
          - path: "$..sendDateTime"
            reason: "time the push was sent"

        """

    @Test func sampleExistsOrIsRecorded() async throws {
        let dir = Self.sampleDirectory()
        if ProcessInfo.processInfo.environment["CONFORM_RECORD_GOLDENS"] == "1" {
            try? FileManager.default.removeItem(atPath: dir + "/exchanges.jsonl")
            try? FileManager.default.removeItem(atPath: dir + "/meta.json")
            let writer = try RecordingWriter(directory: dir)
            try await ReferenceFlowScript.run(into: writer, transport: InProcessTransport(ReferenceImplementation()))
            writer.close()
            try Data(Self.noiseYAML.utf8).write(to: URL(fileURLWithPath: dir + "/noise.yaml"))
            try HAR.export(readAll(dir)).write(to: URL(fileURLWithPath: dir + "/personalization-flow.har"))
        }
        #expect(
            FileManager.default.fileExists(atPath: dir + "/exchanges.jsonl"),
            "missing sample; run with CONFORM_RECORD_GOLDENS=1")
        let meta = try RecordingMeta.load(directory: dir)
        #expect(meta.redacted)
    }

    @Test func sampleReplaysAgainstTheReferenceAndConforms() async throws {
        let dir = Self.sampleDirectory()
        let noise = try NoiseRules.load(
            Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/noise.yaml"))), file: dir + "/noise.yaml")
        let summary = try await Replayer(transport: InProcessTransport(ReferenceImplementation()), noise: noise)
            .replay(try Trace.open(dir))
        #expect(summary.mismatches.map(\.description) == [])
        #expect(summary.total == 16)
        let violations = try await FlowChecker.check(try Trace.open(dir), configuration: .reference)
        #expect(violations == [])
        #expect(try SecretScanner(profile: .mobileMessaging).scan(paths: [dir]) == [])
        let har = try importedHAR(Data(contentsOf: URL(fileURLWithPath: dir + "/personalization-flow.har")))
        #expect(har == (try readAll(dir)))
    }
}
