import ConformCore
import ConformReference
import Testing

@Suite struct UserTests {
    let h = Harness()

    /// M7: the user plus `instances` with pushRegId and isPrimary.
    @Test func getUserWithInstances() {
        let user = freshUser()
        let a = h.register()
        let b = h.register(dialect: .ios)
        h.personalize(a, user, primary: true)
        h.personalize(b, user)
        let r = h.user(a)
        #expect(r.status == 200)
        #expect(r.headerFields["Content-Type"] == "application/json")
        #expect(r.json["externalUserId"]?.stringValue == user)
        let instances = r.json["instances"]?.arrayValue ?? []
        #expect(instances.compactMap { $0["pushRegId"]?.stringValue } == [a, b])
        #expect(instances.map { $0["isPrimary"] } == [true, false])
        // Anonymous: no externalUserId, one instance.
        let anon = h.user(h.register())
        #expect(anon.json["externalUserId"] == nil)
        #expect(anon.json["instances"]?.arrayValue?.count == 1)
    }

    /// M8 in both dialects: delta applied, null deletes, phones/emails replaced.
    @Test(arguments: Dialect.allCases) func patchUser(dialect: Dialect) {
        let id = h.register()
        h.personalize(id, freshUser(), body: nil)
        let r = h.mobile(
            .patch, "/mobile/1/appinstance/\(id)/user?ri=0&rt=0", caller: id,
            body: [
                "firstName": "Ana", "middleName": "M", "phones": [["number": "385981234567"]],
                "customAttributes": ["tier": "gold", "since": "2024-01-01"], "tags": ["vip"],
            ], dialect: dialect)
        #expect(r.status == 200)
        h.mobile(
            .patch, "/mobile/1/appinstance/\(id)/user", caller: id,
            body: ["middleName": nil, "customAttributes": ["tier": nil]], dialect: dialect)
        let u = h.user(id).json
        #expect(u["firstName"] == "Ana")
        #expect(u["middleName"] == nil)
        #expect(u["phones"]?[0]?["number"] == "385981234567")
        #expect(u["customAttributes"] == ["since": "2024-01-01"])
        #expect(u["tags"] == ["vip"])
    }

    @Test func patchUserValidationAndMerge() {
        let a = h.register()
        let b = h.register()
        h.personalize(a, "owner-a")
        h.personalize(b, "owner-b")
        #expect(
            h.mobile(.patch, "/mobile/1/appinstance/\(a)/user", caller: a, body: ["emails": [["address": "x"]]])
                .messageId == "EMAIL_INVALID")
        #expect(
            h.mobile(.patch, "/mobile/1/appinstance/\(a)/user", caller: a, body: ["phones": [["number": "abc"]]])
                .messageId == "PHONE_INVALID")
        #expect(
            h.mobile(.patch, "/mobile/1/appinstance/\(a)/user", caller: a, body: ["externalUserId": "owner-b"])
                .messageId == "USER_MERGE_INTERRUPTED")
        #expect(
            h.mobile(.patch, "/mobile/1/appinstance/\(a)/user", caller: a, body: ["firstName": 3]).messageId
                == "REQUEST_FORMAT_INVALID")
        #expect(
            h.mobile(.patch, "/mobile/1/appinstance/\(a)/user", caller: a, rawBody: "{x").messageId
                == "REQUEST_FORMAT_INVALID")
        // An anonymous device may take an unused externalUserId through PATCH user.
        let c = h.register()
        #expect(
            h.mobile(.patch, "/mobile/1/appinstance/\(c)/user", caller: c, body: ["externalUserId": "new-owner"]).status
                == 200)
        #expect(h.externalUserId(of: c) == "new-owner")
        #expect(h.reference.checkInvariants().isEmpty)
    }

    /// M9 and M10.
    @Test(arguments: Dialect.allCases) func sessionsAndEvents(dialect: Dialect) {
        let id = h.register()
        let session = h.mobile(
            .post, "/mobile/1/appinstance/\(id)/user/events/session", caller: id,
            body: [
                "systemData": ["os": "Android"], "sessionStarts": ["2026-01-05T10:00:00+01:00"],
                "sessionBounds": ["2026-01-04T09:00:00+01:00": "2026-01-04T09:05:12+01:00"],
            ])
        #expect(session.status == 200)
        let validate = dialect == .android ? "true" : "1"
        let events = h.mobile(
            .post, "/mobile/1/appinstance/\(id)/user/events/custom?validate=\(validate)", caller: id,
            body: [
                "events": [
                    ["definitionId": "purchase", "date": "2026-01-05T10:00:00+01:00", "properties": ["amount": 12.5]]
                ]
            ])
        #expect(events.status == 200)
        #expect(
            h.mobile(
                .post, "/mobile/1/appinstance/\(id)/user/events/custom?validate=false", caller: id,
                body: ["events": [["properties": [:]]]]
            ).messageId == "REQUEST_FORMAT_INVALID")
        #expect(
            h.mobile(.post, "/mobile/1/appinstance/\(id)/user/events/session", caller: id, body: ["sessionStarts": "x"])
                .messageId == "REQUEST_FORMAT_INVALID")
        #expect(
            h.mobile(.post, "/mobile/1/appinstance/nope/user/events/session", caller: "nope", body: [:]).messageId
                == "NO_REGISTRATION")
    }
}
