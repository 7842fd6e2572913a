import ConformCore
import Foundation
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// `applyNoting` says a recorded body can hold no id the map does not know only when every id it replaced was a
/// whole JSON string and no irregular id occurs in it; the replay then skips parsing bodies that are equal once
/// remapped, and learning from them gives nothing, as the last test checks on each case.
struct IdentifierMapNotingTests {
    let map = IdentifierMap(["reg-old-1": "reg-new-1", "a.b@c": "x.y@z"])

    func noting(_ body: String) -> (body: String, wholeIds: Bool) {
        let (response, whole) = map.applyNoting(HTTPResponse(status: 200, body: Data(body.utf8)))
        return (String(decoding: response.body, as: UTF8.self), whole)
    }

    @Test func wholeStringIdsAreNotedAsSuch() {
        #expect(noting(#"{"pushRegId":"reg-old-1","n":1}"#) == (#"{"pushRegId":"reg-new-1","n":1}"#, true))
        #expect(noting(#"{"n":"nothing mapped"}"#) == (#"{"n":"nothing mapped"}"#, true))
    }

    @Test func idsInsideLongerTextsNestedJSONOrIrregularIdsAreNot() {
        #expect(noting(#"{"m":"id reg-old-1 here"}"#) == (#"{"m":"id reg-new-1 here"}"#, false))
        #expect(noting(#"{"m":"{\"pushRegId\":\"reg-old-1\"}"}"#).wholeIds == false)
        #expect(noting(#"{"u":"a.b@c"}"#) == (#"{"u":"x.y@z"}"#, false))
        #expect(noting("reg-old-1") == ("reg-new-1", false))
    }

    @Test func aBodyEqualOnceRemappedWithWholeIdsTeachesNothing() throws {
        // A minted value holding a mapped id with other text: equal once remapped, yet learning would map it.
        let recorded = #"{"messageId":"m.reg-old-1"}"#
        let live = #"{"messageId":"m.reg-new-1"}"#
        let (remapped, whole) = noting(recorded)
        #expect(remapped == live)
        #expect(!whole)
        var learning = map
        let added = learning.learn(recorded: try JSONValue.parse(recorded), live: try JSONValue.parse(live))
        #expect(added.map(\.recorded) == ["m.reg-old-1"])
        // The same with a whole id: nothing to learn.
        var whole2 = map
        let none = whole2.learn(
            recorded: try JSONValue.parse(#"{"pushRegId":"reg-old-1"}"#),
            live: try JSONValue.parse(#"{"pushRegId":"reg-new-1"}"#))
        #expect(none.isEmpty)
        #expect(noting(#"{"pushRegId":"reg-old-1"}"#) == (#"{"pushRegId":"reg-new-1"}"#, true))
    }
}
