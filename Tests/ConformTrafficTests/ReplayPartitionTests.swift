import ConformCore
import ConformReport
import ConformRunner
import ConformTestSupport
import Foundation
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// `conform replay --shard K/N`: devices that share a person, and the backend calls about that person, stay together.
@Suite struct ReplayPartitionTests {
    func exchange(_ seq: Int, flow: String, person: String?, upstream: String = "mobile") -> RecordedExchange {
        let body = person.map { #"{"userIdentity":{"externalUserId":"\#($0)"}}"# } ?? "{}"
        return RecordedExchange(
            seq: seq, flow: flow, upstream: upstream, startedAt: Date(timeIntervalSince1970: 0), durationMs: 1,
            request: HTTPRequest(method: .post, url: "/x", body: Data(body.utf8)), response: .empty(200))
    }

    @Test func groupsStayWholeAndEveryExchangeHasExactlyOneShard() async throws {
        let exchanges = [
            exchange(1, flow: "dev-a", person: nil), exchange(2, flow: "dev-b", person: nil),
            exchange(3, flow: "dev-a", person: "ana"), exchange(4, flow: "dev-c", person: "bo"),
            exchange(5, flow: "dev-b", person: "ana"), exchange(6, flow: "dev-d", person: nil),
            exchange(7, flow: "backend", person: "bo", upstream: "backend"),
            exchange(8, flow: "backend", person: nil, upstream: "backend"),
            exchange(9, flow: "dev-e", person: "cy"), exchange(10, flow: "backend", person: "cy", upstream: "backend"),
        ]
        for count in 1...6 {
            var owner: [Int: Int] = [:]
            var groups = 0
            for index in 1...count {
                let partition = try await ReplayPartition.build(
                    exchanges, shard: try #require(Shard(index: index, count: count)))
                #expect(partition.groupCount == 4)  // {a, b, ana}, {c, bo}, {d}, {e, cy}
                groups += partition.ownedGroupCount
                for e in exchanges where partition.owns(e) {
                    #expect(owner[e.seq] == nil, "exchange \(e.seq) is in two shards")
                    owner[e.seq] = index
                }
            }
            #expect(groups == 4)
            #expect(owner.count == exchanges.count, "some exchange is in no shard of \(count)")
            #expect(owner[1] == owner[2] && owner[2] == owner[3] && owner[3] == owner[5], "devices sharing ana split")
            #expect(owner[4] == owner[7], "the backend call about bo left bo's device")
            #expect(owner[9] == owner[10])
            #expect(owner[8] == 1, "a backend call about no person goes to shard 1")
        }
    }

    /// Each shard replays its part of a recording against one target: everything matches (no dependency was cut), and
    /// together the shards send every exchange once.
    @Test(arguments: [1, 2, 3, 4]) func shardsReplayTheWholeRecordingOnce(count: Int) async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recorded = try await ReplayTests.recording(dir, devices: 6)
        let target = InProcessTransport(FakeMessagingHandler())
        var total = 0
        for index in 1...count {
            var options = ReplayOptions()
            options.partition = try await ReplayPartition.build(
                try Trace.open(dir).exchanges(), shard: try #require(Shard(index: index, count: count)))
            let summary = try await Replayer(transport: target, options: options).replay(try Trace.open(dir))
            #expect(summary.mismatches.map(\.description) == [], "shard \(index)/\(count)")
            #expect(summary.failed == 0)
            total += summary.total
        }
        #expect(total == recorded.count)
    }

    @Test func latencyPercentilesComeFromABoundedHistogram() {
        var h = DurationHistogram()
        #expect(h.percentile(0.5) == 0)
        for ms in 1...100 { h.record(Double(ms) / 1000) }
        #expect(h.count == 100)
        #expect(abs(h.percentile(0.5) - 0.050) <= 0.050 * 0.06)
        #expect(abs(h.percentile(0.99) - 0.099) <= 0.099 * 0.06)
        #expect(h.maximum == 0.1)
        h.record(-1)
        h.record(.infinity)
        h.record(1e9)
        #expect(h.count == 103)
    }
}
