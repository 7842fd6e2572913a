import ConformCore
import ConformMobileMessaging
import ConformReference
import ConformReport
import ConformTestSupport
import Foundation
import Testing

@testable import ConformFlowCheck
@testable import ConformReplay
@testable import ConformTraffic

@Suite struct ReferenceReplayTests {
    /// A reference whose clock stands still at `second` seconds past a fixed instant, so send times are predictable.
    static func reference(at second: Double, faults: Set<ReferenceFault> = []) -> ReferenceImplementation {
        ReferenceImplementation(configuration: .default, faults: faults) {
            Date(timeIntervalSince1970: 1_767_600_000 + second)
        }
    }

    static func record(_ dir: String, redaction: RedactionPolicy = RedactionPolicy(profile: .mobileMessaging))
        async throws -> [RecordedExchange]
    {
        let writer = try RecordingWriter(directory: dir, redaction: redaction)
        try await ReferenceFlowScript.run(into: writer, transport: InProcessTransport(reference(at: 0)))
        writer.close()
        return try readAll(dir)
    }

    @Test func recordedFlowIsSuccessfulRedactedAndConforms() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recorded = try await Self.record(dir)
        #expect(recorded.count == 16)
        for e in recorded {
            #expect(
                e.response.status.isSuccess,
                "\(e.seq) \(e.request.target): \(String(decoding: e.response.body, as: UTF8.self))")
        }
        #expect(try SecretScanner(profile: .mobileMessaging).scan(paths: [dir]) == [])
        #expect(FlowChecker.check(recorded, configuration: .reference) == [])
    }

    @Test func replayAgainstAFreshReferencePasses() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await Self.record(dir)
        let plain = try await Replayer(transport: InProcessTransport(Self.reference(at: 1))).replay(try Trace.open(dir))
        // The send time inside the GCM payload's embedded JSON is the only volatile value.
        #expect(plain.mismatches.flatMap(\.differences).map(\.path) == ["$.payloads[0].internalData.sendDateTime"])
        let noise = try NoiseRules.load(Array("ignore:\n  - path: $..sendDateTime\n".utf8), file: "noise.yaml")
        let summary = try await Replayer(transport: InProcessTransport(Self.reference(at: 2)), noise: noise)
            .replay(try Trace.open(dir))
        #expect(summary.mismatches.map(\.description) == [])
        #expect(summary.passed == 16)
        // Two pushRegIds, the v2 bulkId, the synced messageId, the v3 bulkId and messageId(s) were remapped.
        #expect(summary.identifiers.mapping.count >= 5)
    }

    @Test func differentialAgainstAFaultyReferenceFindsTheStep() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await Self.record(dir)
        let report = try await Differential(
            a: InProcessTransport(ReferenceImplementation()),
            b: InProcessTransport(ReferenceImplementation(faults: [.ignoreForceDepersonalize])),
            // Both send times are live, so they differ whenever the two calls straddle a millisecond.
            noise: NoiseRules([.path(JSONPathPattern("$..sendDateTime")!, reason: nil)])
        ).run(try Trace.open(dir).exchanges())
        let differing = report.steps.filter { $0.verdict == .fail }.sorted { $0.mark.line < $1.mark.line }
        #expect(report.status == .mismatch)
        // The user switch on the iOS device (step 11) is the first place the faulty variant differs.
        #expect(differing.first?.mark.line == 11)
        #expect(differing.first?.failures.first?.mismatches.first?.path == "status")
    }

    @Test func learnedNoiseAgainstTwoFreshReferences() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recorded = try await Self.record(dir)
        let learned = try await NoiseLearner.learn(
            recorded, first: InProcessTransport(Self.reference(at: 1)),
            second: InProcessTransport(Self.reference(at: 2)))
        #expect(
            learned.rules.rules == [.path(JSONPathPattern("$.payloads[*].internalData.sendDateTime")!, reason: nil)])
        let summary = try await Replayer(transport: InProcessTransport(Self.reference(at: 3)), noise: learned.rules)
            .replay(recorded)
        #expect(summary.allPassed)
        #expect(NoiseRules.default.merging(learned.rules).rules.count == learned.rules.rules.count)
    }
}
