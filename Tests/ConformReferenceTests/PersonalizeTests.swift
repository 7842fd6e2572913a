import ConformCore
import ConformReference
import Testing

@Suite struct PersonalizeTests {
    let h = Harness()

    /// Flow step 2 on an anonymous device; both dialects' query encodings (D13).
    @Test(arguments: Dialect.allCases) func personalizeAnonymousDevice(dialect: Dialect) {
        let id = h.register(dialect: dialect)
        let user = freshUser()
        let r = h.personalize(
            id, dialect: dialect,
            body: [
                "userIdentity": [
                    "externalUserId": .string(user), "emails": [["address": "ana@example.com"]],
                    "phones": [["number": "385981234567"]],
                ],
                "userAttributes": [
                    "firstName": "Ana", "gender": "Female", "tags": ["vip"], "customAttributes": ["tier": "gold"],
                ],
            ])
        #expect(r.status == 200)
        #expect(r.headerFields["Content-Type"] == "application/json")
        #expect(r.json["externalUserId"]?.stringValue == user)
        #expect(r.json["firstName"] == "Ana")
        #expect(r.json["emails"]?[0]?["address"] == "ana@example.com")
        #expect(r.json["type"] == "CUSTOMER")
        #expect(h.externalUserId(of: id) == user)
    }

    /// D13: parameter order never matters and `1`/`true` both mean true.
    @Test(arguments: [
        "forceDepersonalize=1&keepAsLead=0&setDeviceAsPrimary=1",
        "setDeviceAsPrimary=true&forceDepersonalize=true&keepAsLead=false",
        "keepAsLead=0&setDeviceAsPrimary=1&forceDepersonalize=true",
    ])
    func queryBooleans(query: String) {
        let id = h.register()
        h.personalize(id, freshUser())
        let other = freshUser()
        let r = h.mobile(
            .post, "/mobile/1/appinstance/\(id)/personalize?\(query)", caller: id,
            body: ["userIdentity": ["externalUserId": .string(other)]])
        #expect(r.status == 200)
        #expect(h.externalUserId(of: id) == other)
        #expect(h.reference.snapshot().installation(id)?.isPrimary == true)
    }

    @Test func invalidQueryBoolean() {
        let id = h.register()
        let r = h.mobile(
            .post, "/mobile/1/appinstance/\(id)/personalize?forceDepersonalize=yes", caller: id,
            body: ["userIdentity": ["externalUserId": "u"]])
        #expect(r.status == 400 && r.messageId == "REQUEST_FORMAT_INVALID")
    }

    /// D2: forceDepersonalize=false with a different user is refused and the device stays.
    @Test(arguments: Dialect.allCases) func differentUserWithoutForceIsRefused(dialect: Dialect) {
        let id = h.register(dialect: dialect)
        let first = freshUser()
        h.personalize(id, first, dialect: dialect)
        let r = h.personalize(id, freshUser(), force: false, dialect: dialect)
        #expect(r.status == 400 && r.messageId == "USER_MERGE_INTERRUPTED")
        #expect(h.externalUserId(of: id) == first)
    }

    /// D3: the same identity again is 200, same person.
    @Test func sameIdentityIsIdempotent() {
        let id = h.register()
        let user = freshUser()
        h.personalize(id, user)
        let before = h.reference.snapshot().person(holding: id)?.id
        #expect(h.personalize(id, user).status == 200)
        #expect(h.personalize(id, user, force: true).status == 200)
        #expect(h.reference.snapshot().person(holding: id)?.id == before)
    }

    /// D4: force moves the device; the old person keeps its other devices; the new person is created if new.
    @Test(arguments: Dialect.allCases) func forceMovesOnlyThisDevice(dialect: Dialect) {
        let alice = freshUser("alice")
        let bob = freshUser("bob")
        let a1 = h.register()
        let a2 = h.register()
        h.personalize(a1, alice)
        h.personalize(a2, alice)
        #expect(h.personalize(a1, bob, force: true, dialect: dialect).status == 200)
        let s = h.reference.snapshot()
        #expect(s.person(holding: a1)?.externalUserId == bob)
        #expect(s.person(externalUserId: alice)?.installations.map(\.pushRegId) == [a2])
        // Joining an existing person: a third device joins bob's person.
        let b2 = h.register()
        h.personalize(b2, alice)
        #expect(h.personalize(b2, bob, force: true).status == 200)
        #expect(
            Set(h.reference.snapshot().person(externalUserId: bob)?.installations.map(\.pushRegId) ?? []) == [a1, b2])
        #expect(h.reference.checkInvariants().isEmpty)
    }

    /// An anonymous device personalized to an existing user joins that person (multi-device).
    @Test func secondDeviceJoinsExistingPerson() {
        let user = freshUser()
        let a = h.register()
        let b = h.register(dialect: .ios)
        h.personalize(a, user)
        h.personalize(b, user, dialect: .ios)
        let person = h.reference.snapshot().person(externalUserId: user)
        #expect(person?.installations.map(\.pushRegId) == [a, b])
        #expect(h.reference.snapshot().persons.count == 1)
    }

    /// D5: depersonalize gives a fresh anonymous person; repeating it is 200; the old person keeps other devices.
    @Test func depersonalize() {
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user)
        h.personalize(b, user)
        let r = h.depersonalize(a)
        #expect(r.status == 200)
        #expect(h.externalUserId(of: a) == nil)
        #expect(h.user(a).json["instances"]?.arrayValue?.count == 1)
        #expect(h.reference.snapshot().person(externalUserId: user)?.installations.map(\.pushRegId) == [b])
        #expect(h.depersonalize(a).status == 200)
        // Depersonalize another device of the same person (§3.5).
        #expect(h.depersonalize(b, caller: b).status == 200)
        #expect(h.externalUserId(of: b) == nil)
        // After depersonalize, personalizing to another user needs no force.
        #expect(h.personalize(a, freshUser()).status == 200)
    }

    @Test func depersonalizeOtherDeviceOfSamePerson() {
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user)
        h.personalize(b, user)
        #expect(h.depersonalize(b, caller: a).status == 200)
        #expect(h.externalUserId(of: b) == nil)
        #expect(h.externalUserId(of: a) == user)
    }

    /// D6: setDeviceAsPrimary sets it, and one primary per person.
    @Test(arguments: Dialect.allCases) func primaryIsExclusive(dialect: Dialect) {
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user, primary: true, dialect: dialect)
        h.personalize(b, user, primary: true, dialect: dialect)
        var s = h.reference.snapshot()
        #expect(s.installation(a)?.isPrimary == false)
        #expect(s.installation(b)?.isPrimary == true)
        h.setPrimary(a, true, caller: b, dialect: dialect)
        s = h.reference.snapshot()
        #expect(s.installation(a)?.isPrimary == true && s.installation(b)?.isPrimary == false)
        let instances = h.user(a).json["instances"]?.arrayValue ?? []
        #expect(instances.filter { $0["isPrimary"] == true }.count == 1)
        h.setPrimary(a, false)
        #expect(h.reference.snapshot().installation(a)?.isPrimary == false)
    }

    /// Validation errors (D1: 400 with the envelope).
    @Test(arguments: [
        ("{}", "USER_IDENTITY_INVALID"),
        (#"{"userIdentity":{}}"#, "USER_IDENTITY_INVALID"),
        (#"{"userIdentity":{"externalUserId":""}}"#, "USER_IDENTITY_INVALID"),
        (#"{"userIdentity":{"externalUserId":42}}"#, "USER_IDENTITY_INVALID"),
        (#"{"userIdentity":{"emails":[{"address":"not-an-email"}]}}"#, "EMAIL_INVALID"),
        (#"{"userIdentity":{"phones":[{"number":"+385-98"}]}}"#, "PHONE_INVALID"),
        (#"{"userIdentity":{"phones":[{"number":"38598abc"}]}}"#, "PHONE_INVALID"),
        (#"{"userIdentity":{"externalUserId":"u","emails":"x"}}"#, "EMAIL_INVALID"),
    ])
    func validation(body: String, messageId: String) throws {
        let id = h.register()
        let r = h.personalize(id, body: try JSONValue.parse(body))
        #expect(r.status == 400)
        #expect(r.messageId == messageId)
        #expect(h.externalUserId(of: id) == nil)
    }

    /// Email or phone alone identify a person; two matches are ambiguous.
    @Test func identityByEmailAndAmbiguity() {
        let a = h.register()
        let b = h.register()
        let c = h.register()
        h.personalize(a, body: ["userIdentity": ["externalUserId": "e1", "emails": [["address": "one@example.com"]]]])
        h.personalize(b, body: ["userIdentity": ["externalUserId": "e2", "phones": [["number": "385981111111"]]]])
        let joined = h.personalize(c, body: ["userIdentity": ["emails": [["address": "ONE@example.com"]]]])
        #expect(joined.json["externalUserId"] == "e1")
        let d = h.register()
        let r = h.personalize(
            d,
            body: [
                "userIdentity": ["emails": [["address": "one@example.com"]], "phones": [["number": "385981111111"]]]
            ])
        #expect(r.messageId == "AMBIGUOUS_PERSONALIZE_CANDIDATES")
    }

    /// keepAsLead leaves a new person a LEAD.
    @Test func keepAsLead() {
        let id = h.register()
        #expect(h.personalize(id, freshUser(), keepAsLead: true).json["type"] == "LEAD")
        let other = h.register()
        #expect(h.personalize(other, freshUser(), keepAsLead: false).json["type"] == "CUSTOMER")
    }

    /// M5: repersonalize re-sends the stored user, without query flags.
    @Test func repersonalize() {
        let id = h.register()
        let user = freshUser()
        let r = h.mobile(
            .post, "/mobile/1/appinstance/\(id)/repersonalize", caller: id,
            body: ["userIdentity": ["externalUserId": .string(user)], "userAttributes": ["lastName": "K"]])
        #expect(r.status == 200)
        #expect(h.user(id).json["lastName"] == "K")
        let again = h.mobile(
            .post, "/mobile/1/appinstance/\(id)/repersonalize", caller: id,
            body: ["userIdentity": ["externalUserId": "someone-else"]])
        #expect(again.messageId == "USER_MERGE_INTERRUPTED")
    }
}
