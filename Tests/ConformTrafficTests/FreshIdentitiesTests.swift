import ConformCore
import ConformMobileMessaging
import ConformReference
import Foundation
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// `replay --fresh-identities`: the persons named where the protocol profile says, rewritten alike everywhere.
@Suite struct FreshIdentitiesTests {
    let fresh = FreshIdentities(prefix: "run7", keys: MobileMessaging.replay)!

    func json(_ data: Data) throws -> JSONValue { try JSONValue.parse(data) }

    @Test func eachKindStaysAValueTheProtocolAccepts() {
        #expect(fresh.fresh("cust-ana", kind: .opaque) == "run7-cust-ana")
        #expect(fresh.fresh("ana@mail.example", kind: .email) == "run7-ana@mail.example")
        let phone = fresh.fresh("385911234567", kind: .phone)
        #expect(phone.count == 12 && phone.allSatisfy(\.isNumber) && phone.hasPrefix("38"), "\(phone)")
        #expect(phone != "385911234567")
        #expect(fresh.fresh("+385911234567", kind: .phone) == "+" + phone)
        // Distinct numbers stay distinct; a run with another prefix moves them elsewhere.
        #expect(fresh.fresh("385911234568", kind: .phone) != phone)
        #expect(FreshIdentities(prefix: "run8", keys: .none)!.fresh("385911234567", kind: .phone) != phone)
        #expect(fresh.fresh("ivo@x.example", kind: .byShape) == "run7-ivo@x.example")
        #expect(fresh.fresh("000404199017", kind: .byShape).count == 12)
        #expect(fresh.fresh("cust-ivo", kind: .byShape) == "run7-cust-ivo")
        // Not a phone where a phone goes, not an address where an email goes: no one's identity, kept as recorded.
        #expect(fresh.fresh("12", kind: .phone) == "12")
        #expect(fresh.fresh("call-me-maybe", kind: .phone) == "call-me-maybe")
        #expect(fresh.fresh("not an email", kind: .email) == "not an email")
        #expect(fresh.fresh("a@b", kind: .email) == "a@b")
        #expect(fresh.fresh("not an email", kind: .byShape) == "run7-not an email", "a lookup's id is any text")
    }

    @Test func aDeliberatelyInvalidValueIsSentAsRecordedAndItsRefusalMatches() throws {
        let body = #"{"userIdentity":{"emails":[{"address":"not an email"}],"phones":[{"number":"call-me-maybe"}]}}"#
        let request = HTTPRequest(
            method: .post, url: "/mobile/1/appinstance/reg-1/personalize", body: Data(body.utf8))
        #expect(fresh.apply(request).body == Data(body.utf8))
        let refusal = HTTPResponse.json(
            400, ["requestError": ["serviceException": ["text": "'not an email' is not a valid address."]]])
        #expect(fresh.apply(refusal).body == refusal.body)
    }

    @Test func anErrorTextNamingAPersonIsReadThroughTheMapping() throws {
        let lookup = fresh.apply(
            HTTPRequest(method: .get, url: "/people/2/persons?identifier=conform-user-1b3a&type=EXTERNAL_ID"))
        #expect(lookup.url == "/people/2/persons?identifier=run7-conform-user-1b3a&type=EXTERNAL_ID")
        let refusal = HTTPResponse.json(
            404,
            [
                "requestError": [
                    "serviceException": [
                        "text": "No person with EXTERNAL_ID 'conform-user-1b3a'. conform-user-1b3a. conform-user-1b3ab"
                    ]
                ]
            ])
        let expected = try json(fresh.apply(refusal).body)
        #expect(
            expected["requestError"]?["serviceException"]?["text"]
                == "No person with EXTERNAL_ID 'run7-conform-user-1b3a'. run7-conform-user-1b3a. conform-user-1b3ab",
            "a whole word only, a sentence's full stop not part of it")
        // Requests are never rewritten inside their texts: only answers are read through the mapping.
        let note = #"{"note":"conform-user-1b3a is here"}"#
        #expect(fresh.apply(HTTPRequest(method: .post, url: "/x", body: Data(note.utf8))).body == Data(note.utf8))
    }

    @Test func prefixesAreLettersDigitsAndHyphens() {
        #expect(FreshIdentities(prefix: "", keys: .none) == nil)
        #expect(FreshIdentities(prefix: "a b", keys: .none) == nil)
        #expect(FreshIdentities(prefix: "a@b", keys: .none) == nil)
        #expect(FreshIdentities(prefix: String(repeating: "a", count: 33), keys: .none) == nil)
        let random = FreshIdentities.randomPrefix()
        #expect(FreshIdentities.isValidPrefix(random) && random != FreshIdentities.randomPrefix())
    }

    @Test func aPersonalizeIsRewrittenInItsBodyAndItsAnswer() throws {
        let body =
            #"{"userIdentity":{"externalUserId":"cust-ana","phones":[{"number":"000404199017"}],"#
            + #""emails":[{"address":"user-1@redacted.invalid"}]},"userAttributes":{"firstName":"Ana"}}"#
        let request = HTTPRequest(
            method: .post, url: "http://m.example/mobile/1/appinstance/reg-1/personalize?forceDepersonalize=false",
            headerFields: ["Content-Type": "application/json", "Content-Length": String(body.utf8.count)],
            body: Data(body.utf8))
        let sent = fresh.apply(request)
        let identity = try json(sent.body)["userIdentity"]
        #expect(identity?["externalUserId"] == "run7-cust-ana")
        #expect(identity?["emails"]?[0]?["address"] == "run7-user-1@redacted.invalid")
        let phone = identity?["phones"]?[0]?["number"]?.stringValue ?? ""
        #expect(phone.count == 12 && phone != "000404199017")
        #expect(try json(sent.body)["userAttributes"]?["firstName"] == "Ana", "what names no person is kept")
        #expect(sent.url == request.url, "no identity in the URL")
        #expect(sent.headerFields["Content-Length"] == String(sent.body.count))

        let answer = HTTPResponse.json(
            200,
            [
                "externalUserId": "cust-ana", "phones": [["number": "000404199017", "preferred": false]],
                "emails": [["address": "user-1@redacted.invalid"]],
            ])
        let expected = try json(fresh.apply(answer).body)
        #expect(expected["externalUserId"] == "run7-cust-ana")
        #expect(expected["phones"]?[0]?["number"]?.stringValue == phone, "the same phone in request and answer")
        #expect(expected["emails"]?[0]?["address"] == "run7-user-1@redacted.invalid")
    }

    @Test func aLookupAndAPushNameTheSamePersonsAsTheirRequests() throws {
        let lookup = fresh.apply(
            HTTPRequest(method: .get, url: "http://b.example/people/2/persons?identifier=cust-ivo&type=EXTERNAL_ID"))
        #expect(lookup.url == "http://b.example/people/2/persons?identifier=run7-cust-ivo&type=EXTERNAL_ID")
        let byEmail = fresh.apply(
            HTTPRequest(method: .get, url: "/people/2/persons?identifier=ivo%40x.example&type=EMAIL"))
        #expect(byEmail.url == "/people/2/persons?identifier=run7-ivo%40x.example&type=EMAIL")
        // A value met at a declared place is rewritten where it stands whole elsewhere: a path segment, a member
        // the profile does not name, JSON carried in a string.
        let path = fresh.apply(HTTPRequest(method: .get, url: "/people/2/persons/cust-ivo/x?who=cust-ivo"))
        #expect(path.url == "/people/2/persons/run7-cust-ivo/x?who=run7-cust-ivo")
        let push = fresh.apply(
            HTTPResponse.json(
                200, ["bulks": [["to": ["externalUserId": "cust-ivo"], "destination": "cust-ivo"]], "note": "cust"]))
        let bulk = try json(push.body)["bulks"]?[0]
        #expect(bulk?["to"]?["externalUserId"] == "run7-cust-ivo" && bulk?["destination"] == "run7-cust-ivo")
        #expect(try json(push.body)["note"] == "cust", "a value no identity equals is kept")
        let embedded = fresh.apply(HTTPResponse.json(200, ["internalData": #"{"externalUserId":"cust-ivo"}"#]))
        #expect(try json(embedded.body)["internalData"] == #"{"externalUserId":"run7-cust-ivo"}"#)
        // An app event's user is the same person.
        let event = fresh.apply(AppEvent(kind: .login, at: Date(), externalUserId: "cust-ivo"))
        #expect(event.externalUserId == "run7-cust-ivo")
    }

    @Test func whereIdentitiesAreIsTheProfilesToSay() throws {
        // Another protocol: its persons are `login` members and `user` query parameters, not Mobile Messaging's.
        let keys = ProtocolProfile.ReplayKeys(
            identityFields: [.init(JSONPathPattern("$..login")!, .opaque)], identityParameters: ["user": .byShape])
        let other = try #require(FreshIdentities(prefix: "p", keys: keys))
        let body = #"{"login":"ana","externalUserId":"cust-ana"}"#
        let sent = other.apply(
            HTTPRequest(method: .post, url: "/x?user=ivo@x.example&externalUserId=z", body: Data(body.utf8)))
        #expect(try json(sent.body) == ["login": "p-ana", "externalUserId": "cust-ana"])
        #expect(sent.url == "/x?user=p-ivo%40x.example&externalUserId=z")
        // With no keys nothing is a person.
        let none = try #require(FreshIdentities(prefix: "p", keys: .none))
        #expect(none.apply(HTTPRequest(method: .post, url: "/x", body: Data(body.utf8))).body == Data(body.utf8))
    }

    @Test func bodiesThatNameNoPersonAreSentAsRecorded() {
        let body = Data(#"{ "pushServiceToken" : "t-1",  "n": 1.50 }"#.utf8)
        let request = HTTPRequest(method: .post, url: "/mobile/1/appinstance", body: body)
        #expect(fresh.apply(request).body == body)
        let binary = Data([0xFF, 0x00, 0x7B])
        #expect(fresh.apply(HTTPRequest(method: .post, url: "/x", body: binary)).body == binary)
    }

    @Test func replayingTwiceAgainstOneReferenceDiffersUnlessIdentitiesAreFresh() async throws {
        let exchanges = try readAll(SampleRecordingTests.sampleDirectory())
        let target = InProcessTransport(ReferenceImplementation())
        let noise = NoiseRules([.path(JSONPathPattern("$..sendDateTime")!, reason: nil)])
        let first = try await Replayer(transport: target, noise: noise).replay(exchanges)
        #expect(first.allPassed, "\(first.mismatches)")
        let second = try await Replayer(transport: target, noise: noise).replay(exchanges)
        #expect(second.mismatched > 0 && second.leftoverState > 0)
        let noted = second.mismatches.flatMap(\.differences).filter { $0.note == LeftoverState.note }
        #expect(noted.contains { $0.path == "$.contactInformation.push[1]" }, "\(second.mismatches)")
        for prefix in ["one", "two"] {
            var options = ReplayOptions()
            options.freshIdentities = FreshIdentities(prefix: prefix, keys: MobileMessaging.replay)
            let again = try await Replayer(transport: target, noise: noise, options: options).replay(exchanges)
            #expect(again.allPassed && again.leftoverState == 0, "\(again.mismatches)")
        }
    }

    @Test func aConflictTheRecordingDidNotGetIsNotedAsLeftoverState() {
        let recorded = HTTPResponse.json(201, ["id": "p-1"])
        let live = HTTPResponse.json(400, ["error": "Person with this email already exists"])
        let differences = ResponseDiff.compare(expected: recorded, actual: live, noise: .default)
        let noted = LeftoverState.noted(differences, expected: recorded, actual: live)
        #expect(noted.first { $0.path == "status" }?.note == LeftoverState.note)
        // The same refusal recorded is no sign of an earlier replay.
        let alike = LeftoverState.noted(
            [Mismatch(path: "status", expected: "400", actual: "409")], expected: live,
            actual: HTTPResponse(status: 409))
        #expect(alike.first?.note == LeftoverState.note, "409 Conflict is one")
        let unrelated = LeftoverState.noted(
            [Mismatch(path: "status", expected: "200", actual: "500")], expected: recorded,
            actual: HTTPResponse(status: 500))
        #expect(unrelated.first?.note == nil)
    }
}
