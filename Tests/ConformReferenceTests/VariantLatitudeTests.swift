import ConformCore
import ConformReference
import Foundation
import Testing

/// The latitude real backends show where the protocol leaves room: 204 for void calls, other pending statuses,
/// another list order, another JSON style, one messageId shared by a push's copies.
@Suite("Variants: latitude")
struct VariantLatitudeTests {
    /// noContent: every void mobile endpoint answers 204 without a body; those whose answer is read keep it, and so
    /// does B4, whose 200 the backend's documentation names.
    @Test func voidEndpointsAnswerNoContent() {
        let h = variantHarness([.noContent])
        let id = h.register()
        #expect(!id.isEmpty, "M1 keeps its body")
        let patched = h.setPrimary(id, true)
        #expect(patched.status == 204 && patched.body.isEmpty && patched.headerFields["Content-Type"] == nil)
        #expect(h.personalize(id, freshUser()).json["externalUserId"] != nil, "M4 keeps its body")
        let patchUser = h.mobile(.patch, "/mobile/1/appinstance/\(id)/user", caller: id, body: ["firstName": "Ana"])
        #expect(patchUser.status == 204 && patchUser.body.isEmpty)
        #expect(h.user(id).json["firstName"] == "Ana", "the call took effect")
        #expect(h.depersonalize(id).status == 204)
        #expect(h.depersonalize(id).status == 204, "a repeat too")
        #expect(h.backend(.post, "/people/2/contactInformation/push/\(id)/depersonalize").status == 200, "B4: 200")
        #expect(h.backend(.get, "/people/2/contactInformation/push/\(id)").status == 200, "B1 keeps its body")
        #expect(h.mobile(.get, "/mobile/1/appinstance/nobody", caller: "nobody").status == 400, "errors stay")
    }

    /// otherPushStatuses: a push that reaches devices reports another pending status; reaching nobody is unchanged.
    @Test func acceptedPushesReportAnotherPendingStatus() {
        let h = variantHarness([.otherPushStatuses])
        let id = h.register()
        let reached = h.push(to: ["pushRegistrationId": .string(id)])
        #expect(reached.status == 200)
        #expect(reached.bulk?["status"]?["name"] == "PENDING_ENROUTE")
        #expect(reached.bulk?["status"]?["groupName"] == "PENDING")
        let nobody = h.push(to: ["externalUserId": .string(freshUser())])
        #expect(nobody.bulk?["status"]?["name"] == "UNDELIVERABLE_NO_DESTINATION")
        let v3: JSONValue = [
            "messages": [
                [
                    "sender": .string(appCode), "content": ["text": "v3"],
                    "destinations": [["type": "REGISTRATION", "pushRegistrationId": .string(id)]],
                ]
            ]
        ]
        let answer = h.backend(.post, "/push/3/messages", appCodeHeader: nil, body: v3).json
        #expect(answer["messages"]?[0]?["status"]?["name"] == "PENDING_ACCEPTED")
    }

    /// otherListOrder: a person's devices, payloads and tags come reversed; user data inside is untouched.
    @Test func unorderedListsComeReversed() {
        let h = variantHarness([.otherListOrder])
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        let body: JSONValue = [
            "userIdentity": ["externalUserId": .string(user)],
            "userAttributes": ["tags": ["first", "second"], "customAttributes": ["list": "x"]],
        ]
        h.personalize(a, body: body)
        h.personalize(b, user)
        let json = h.user(a).json
        let devices = json["instances"]?.arrayValue ?? []
        #expect(devices.compactMap { $0["pushRegId"]?.stringValue } == [b, a])
        #expect(json["tags"] == ["second", "first"])
        h.push(to: ["pushRegistrationId": .string(a)], text: "one")
        h.push(to: ["pushRegistrationId": .string(a)], text: "two")
        let texts = h.sync(a).compactMap { $0["gcm.notification.body"]?.stringValue }
        #expect(texts == ["two", "one"])
        let person = h.backend(.get, "/people/2/persons?identifier=\(user)&type=EXTERNAL_ID").json
        let registrations = person["contactInformation"]?["push"]?.arrayValue ?? []
        #expect(registrations.compactMap { $0["registrationId"]?.stringValue } == [b, a])
    }

    /// otherJSONStyle: the same values in another layout; the text differs, the parsed value does not.
    @Test func jsonComesInAnotherStyle() throws {
        let plain = Harness()
        let styled = variantHarness([.otherJSONStyle])
        let body: JSONValue = [
            "userIdentity": ["externalUserId": "ana/ñ-1"], "userAttributes": ["firstName": "Zoë", "lastName": "A/B"],
        ]
        let one = plain.personalize(plain.register(), body: body)
        let other = styled.personalize(styled.register(), body: body)
        let text = String(decoding: other.body, as: UTF8.self)
        #expect(text.contains("\n  \""), "indented")
        #expect(text.contains(#"ana\/\u00f1-1"#), "slash and non-ASCII escaped")
        #expect(!text.contains { !$0.isASCII })
        #expect(other.headerFields["Content-Length"] == String(other.body.count))
        let parsed = try JSONValue.parse(other.body)
        #expect(parsed == one.json)
        #expect(parsed.objectValue?.keys == one.json.objectValue?.keys.reversed())
    }

    /// sharedMessageId: one id for every copy of a push; a delivery on one device leaves the other's copy pending.
    @Test func copiesOfOnePushShareTheirMessageId() {
        let h = variantHarness([.sharedMessageId])
        let user = freshUser()
        let a = h.register(dialect: .ios)
        let b = h.register()
        h.personalize(a, user)
        h.personalize(b, user)
        #expect(h.push(to: ["externalUserId": .string(user)]).bulk?["messageCount"] == 2)
        let onA = h.syncedIds(a, platform: "APNS")
        let onB = h.syncedIds(b)
        #expect(onA.count == 1 && onA == onB)
        h.mobile(
            .post, "/mobile/1/messages/deliveryreport", caller: a, body: ["dlrIds": .array(onA.map(JSONValue.string))])
        #expect(h.syncedIds(a, platform: "APNS").isEmpty)
        #expect(h.syncedIds(b) == onB, "the other device's copy is still to be delivered")
        _ = h.syncedIds(b, drIDs: onB)
        #expect(h.syncedIds(b).isEmpty)
        #expect(h.push(to: ["externalUserId": .string(user)]).bulk?["messageCount"] == 2)
        #expect(h.syncedIds(a, platform: "APNS") != onA, "each push its own id")
    }
}
