import ConformCore
import Foundation
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// Devices sharing a person replay in recorded order, also where an exchange names no person but reads what another
/// device of its person changed (a registration's `isPrimary`).
@Suite struct PersonLinksTests {
    func exchange(_ seq: Int, flow: String, body: String = "", answer: String = "") -> RecordedExchange {
        RecordedExchange(
            seq: seq, flow: flow, upstream: "mobile", startedAt: Date(), durationMs: 1,
            request: HTTPRequest(method: .post, url: "/x", body: Data(body.utf8)),
            response: HTTPResponse(status: 200, body: Data(answer.utf8)))
    }

    @Test func anExchangeNamingNoPersonFollowsThePersonItsDeviceWasSeenWith() {
        var links = PersonLinks()
        let crossed1 = links.crossesFlows(exchange(1, flow: "a", body: #"{"externalUserId":"ana"}"#))
        #expect(!crossed1)
        let crossed2 = links.crossesFlows(exchange(2, flow: "b", answer: #"{"externalUserId":"ana","isPrimary":true}"#))
        #expect(crossed2)
        // Device b made itself primary: a's registration read (no person in it) waits for that.
        let crossed3 = links.crossesFlows(exchange(3, flow: "a", answer: #"{"isPrimary":false}"#))
        #expect(crossed3)
        let crossed4 = links.crossesFlows(exchange(4, flow: "a", answer: #"{"isPrimary":false}"#))
        #expect(!crossed4)
        // A device never seen with a person is independent.
        let crossed5 = links.crossesFlows(exchange(5, flow: "c", answer: #"{"isPrimary":false}"#))
        #expect(!crossed5)
    }
}
