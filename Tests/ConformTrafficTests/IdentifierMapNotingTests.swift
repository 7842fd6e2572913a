import ConformCore
import ConformMobileMessaging
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
        let added = learning.learn(
            recorded: try JSONValue.parse(recorded), live: try JSONValue.parse(live),
            minted: MobileMessaging.replay.minted)
        #expect(added.map(\.recorded) == ["m.reg-old-1"])
        // The same with a whole id: nothing to learn.
        var whole2 = map
        let none = whole2.learn(
            recorded: try JSONValue.parse(#"{"pushRegId":"reg-old-1"}"#),
            live: try JSONValue.parse(#"{"pushRegId":"reg-new-1"}"#), minted: MobileMessaging.replay.minted)
        #expect(none.isEmpty)
        #expect(noting(#"{"pushRegId":"reg-old-1"}"#) == (#"{"pushRegId":"reg-new-1"}"#, true))
    }
}

/// The same judgements on a map of regular ids only, whose bodies are searched as bytes: ids replaced in text, a
/// body that is not UTF-8 left as it came though it holds an id's bytes, headers remapped where they hold an id.
struct IdentifierMapBytesTests {
    let map = IdentifierMap(["reg-old-1": "reg-new-1", "msg-old-22": "msg-new-22"])

    func noting(_ body: Data) -> (body: Data, wholeIds: Bool) {
        let (response, whole) = map.applyNoting(HTTPResponse(status: 200, body: body))
        return (response.body, whole)
    }

    @Test func idsInTextAreReplacedAndNoted() {
        #expect(
            noting(Data(#"{"pushRegId":"reg-old-1","m":["msg-old-22"]}"#.utf8))
                == (Data(#"{"pushRegId":"reg-new-1","m":["msg-new-22"]}"#.utf8), true))
        #expect(noting(Data(#"{"m":"id reg-old-1 here"}"#.utf8)) == (Data(#"{"m":"id reg-new-1 here"}"#.utf8), false))
        #expect(noting(Data(#"{"n":"reg-old-10"}"#.utf8)) == (Data(#"{"n":"reg-old-10"}"#.utf8), true))
        #expect(noting(Data()) == (Data(), true))
    }

    @Test func aBodyThatIsNotUTF8IsLeftAlone() {
        let binary = Data([0xFF, 0xFE, 0x20] + Array("reg-old-1".utf8) + [0x20, 0xC3])
        #expect(noting(binary) == (binary, true))
        #expect(map.apply(body: binary) == binary)
    }

    @Test func aRequestIsRemappedInURLHeadersAndBodyWithItsLengthKept() {
        let longer = IdentifierMap(["reg-old-1": "reg-new-longer-1"])
        let body = Data(#"{"r":"reg-old-1","s":"reg-old-1x"}"#.utf8)
        let request = HTTPRequest(
            method: .post, url: "http://h/mobile/1/appinstance/reg-old-1/user",
            headerFields: ["Authorization": "App code", "X-Reg": "reg-old-1", "Content-Length": String(body.count)],
            body: body)
        let sent = longer.apply(request)
        #expect(sent.url == "http://h/mobile/1/appinstance/reg-new-longer-1/user")
        #expect(sent.headerFields["X-Reg"] == "reg-new-longer-1")
        #expect(sent.headerFields["Authorization"] == "App code")
        #expect(sent.body == Data(#"{"r":"reg-new-longer-1","s":"reg-old-1x"}"#.utf8))
        #expect(sent.headerFields["Content-Length"] == String(sent.body.count))
        let unchanged = IdentifierMap(["zzz-1": "yyy-1"]).apply(request)
        #expect(unchanged == request)
    }

    /// Walking the recorded and live bodies side by side answers as building the remapped body and comparing it
    /// does, over bodies with ids whole and inside texts or none, live bodies equal, one byte off, shorter and longer,
    /// and bodies that are not UTF-8.
    @Test func walkingBothBodiesAnswersAsRemappingDoes() {
        let regular = IdentifierMap(["reg-old-1": "reg-new-1", "msg-0001": "m2", "abc": "a-much-longer-live-id"])
        var random = SplitMix64(seed: 7)
        let pieces = [
            #"{"pushRegId":"reg-old-1"}"#, #"{"m":"msg-0001 x"}"#, "abc", "abcd", "reg-old-1", #""abc""#, "é", " ",
            #"{"n":1}"#, "msg-0001", "reg-old-12",
        ]
        for _ in 0..<3_000 {
            var recorded = Data(
                (0..<Int.random(in: 1...6, using: &random)).map { _ in
                    pieces.randomElement(using: &random)!
                }.joined().utf8)
            if Int.random(in: 0..<10, using: &random) == 0 { recorded.append(0xFF) }
            let (remapped, wholeIds) = regular.applyNoting(HTTPResponse(status: 200, body: recorded))
            var lives = [remapped.body, recorded, remapped.body + Data("x".utf8), remapped.body.dropLast()]
            if !remapped.body.isEmpty {
                var off = remapped.body
                let at = Int.random(in: 0..<off.count, using: &random)
                off[off.startIndex + at] ^= 0x01
                lives.append(off)
            }
            for live in lives {
                let answer = regular.remappedBody(recorded, equals: live)
                #expect(answer?.equal == (remapped.body == live), "\(String(decoding: recorded, as: UTF8.self))")
                if answer?.equal == true { #expect(answer?.wholeIds == wholeIds) }
            }
        }
        // Ids searched as substrings are left to the remapping.
        let irregular = IdentifierMap(["reg-old-1": "reg-new-1", "a.b@c": "x.y@z"])
        #expect(irregular.remappedBody(Data("a.b@c".utf8), equals: Data("x.y@z".utf8)) == nil)
        #expect(IdentifierMap().remappedBody(Data("abc".utf8), equals: Data("abc".utf8)) == nil)
    }

}
