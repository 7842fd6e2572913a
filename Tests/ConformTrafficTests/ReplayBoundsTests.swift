import ConformCore
import Foundation
import Synchronization
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// What a replay holds is bounded by counts, not by the recording's length: the mismatches kept for the summary and
/// the transient ids mapped stay at their bounds however many exchanges go through.
@Suite struct ReplayBoundsTests {
    /// A target that mints a message id of its own for every request and refuses every third (`/messages/SEQ`).
    final class MintingTarget: Transport {
        private let served = Mutex(0)

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let n = served.withLock { count in
                count += 1
                return count
            }
            let seq = Int(request.url.split(separator: "/").last ?? "") ?? 0
            let status = seq % 3 == 0 ? 500 : 200
            return HTTPResponse(
                status: HTTPStatus(status), headerFields: ["Content-Type": "application/json"],
                body: Data(#"{"messageId":"live-\#(n)-id"}"#.utf8))
        }
    }

    /// `count` exchanges of ten device flows, each recorded answer naming a message id of its own, made as they are
    /// read (the test holds no recording).
    struct Recording: AsyncSequence, Sendable {
        let count: Int

        func makeAsyncIterator() -> Iterator { Iterator(count: count) }

        struct Iterator: AsyncIteratorProtocol {
            let count: Int
            var seq = 0

            mutating func next() async throws -> RecordedExchange? {
                guard seq < count else { return nil }
                seq += 1
                return exchange(
                    seq: seq, method: .get, url: "http://mobile.example/mobile/1/messages/\(seq)",
                    responseBody: #"{"messageId":"recorded-\#(seq)-id"}"#, flow: "device-\(seq % 10)")
            }
        }
    }

    @Test func mismatchesKeptAndTransientIdsStayAtTheirBoundsWhateverTheLength() async throws {
        var options = ReplayOptions(maxKeptMismatches: 5)
        options.transientIdentifiers = 100
        let kept = Mutex(0)
        let summary = try await Replayer(transport: MintingTarget(), options: options).replay(
            sequence: Recording(count: 3000), onOutcome: { _ in kept.withLock { $0 += 1 } })
        #expect(summary.total == 3000)
        #expect(summary.passed == 2000)
        #expect(summary.mismatched == 1000)
        // Every outcome went to the handler as it came; the summary keeps the first five that did not pass.
        #expect(kept.withLock { $0 } == 3000)
        #expect(summary.mismatches.count == 5)
        #expect(summary.mismatches.allSatisfy { $0.differences.map(\.path) == ["status"] })
        // A message id is learned from every answer, and only the latest hundred stay mapped.
        #expect(summary.identifiers.mapping.count == 100)
    }
}
