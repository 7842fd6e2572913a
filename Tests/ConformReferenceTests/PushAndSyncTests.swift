import ConformCore
import ConformReference
import Testing

@Suite struct PushAndSyncTests {
    let h = Harness()

    /// Two devices of one person: a push by externalUserId reaches both, M14 shows it on each (D12).
    @Test func multiDevicePushAndSync() {
        let user = freshUser()
        let a = h.register()
        let b = h.register(dialect: .ios)
        h.personalize(a, user)
        h.personalize(b, user, dialect: .ios)
        let r = h.push(to: ["externalUserId": .string(user)])
        #expect(r.status == 200)
        #expect(r.bulk?["messageCount"] == 2)
        #expect(r.bulk?["status"]?["name"] == "PENDING_ACCEPTED")
        #expect(r.bulk?["status"]?["id"] == 26)
        #expect(r.bulk?["to"]?["externalUserId"]?.stringValue == user)
        #expect(r.bulk?["bulkId"]?.stringValue?.isEmpty == false)
        let gcm = h.sync(a, platform: "GCM")
        #expect(gcm.count == 1)
        #expect(gcm.first?["gcm.notification.body"] == "Hi")
        #expect(gcm.first?["gcm.notification.silent"] == "false")
        #expect(gcm.first?["internalData"]?.stringValue?.contains("sendDateTime") == true)
        let apns = h.sync(b, platform: "APNS")
        #expect(apns.count == 1)
        #expect(apns.first?["aps"]?["alert"]?["body"] == "Hi")
        #expect(apns.first?["messageId"]?.stringValue != gcm.first?["gcm.notification.messageId"]?.stringValue)
    }

    /// D12: drIDs are delivered and never re-sent; ids in mIDs are left out; the rest is re-sent until reported.
    @Test func syncMarksDeliveredAndSkipsHeldIds() {
        let user = freshUser()
        let a = h.register()
        h.personalize(a, user)
        _ = h.push(to: ["externalUserId": .string(user)], text: "one")
        _ = h.push(to: ["externalUserId": .string(user)], text: "two")
        let ids = h.syncedIds(a)
        #expect(ids.count == 2)
        #expect(h.syncedIds(a) == ids)  // not reported yet: sent again
        #expect(h.syncedIds(a, mIDs: [ids[0]]) == [ids[1]])
        #expect(h.syncedIds(a, drIDs: [ids[0]]) == [ids[1]])
        #expect(h.syncedIds(a) == [ids[1]])
        #expect(h.syncedIds(a, drIDs: [ids[1]]).isEmpty)
    }

    @Test func syncErrors() {
        let a = h.register()
        #expect(h.mobile(.post, "/mobile/5/messages?platformType=GCM").messageId == "NO_REGISTRATION")
        #expect(h.mobile(.post, "/mobile/5/messages?platformType=GCM", caller: "nope").messageId == "NO_REGISTRATION")
        #expect(h.mobile(.post, "/mobile/5/messages?platformType=WNS", caller: a).messageId == "REQUEST_FORMAT_INVALID")
        #expect(
            h.mobile(.post, "/mobile/5/messages?platformType=GCM", caller: a, body: ["mIDs": "x"]).messageId
                == "REQUEST_FORMAT_INVALID")
        #expect(h.mobile(.post, "/mobile/5/messages?platformType=GCM", auth: "App \(apiKey)", caller: a).status == 401)
        #expect(h.mobile(.post, "/mobile/5/messages?platformType=APNS", caller: a, body: [:]).json == ["payloads": []])
    }

    /// D7 and D6: targetOnlyPrimaryDevices reaches only the primary; with none it is accepted and reaches none.
    @Test func targetOnlyPrimaryDevices() {
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user)
        h.personalize(b, user)
        let none = h.push(to: ["externalUserId": .string(user)], onlyPrimary: true)
        #expect(none.status == 200)
        #expect(none.bulk?["messageCount"] == 0)
        #expect(none.bulk?["status"]?["name"] == "UNDELIVERABLE_NO_DESTINATION")
        #expect(none.bulk?["status"]?["id"] == 66)
        h.setPrimary(b, true)
        let one = h.push(to: ["externalUserId": .string(user)], onlyPrimary: true)
        #expect(one.bulk?["messageCount"] == 1)
        #expect(h.syncedIds(a).isEmpty)
        #expect(h.syncedIds(b).count == 1)
    }

    /// D5: pushes to the old externalUserId no longer reach a depersonalized device.
    @Test func depersonalizedDeviceIsNotReached() {
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user)
        h.personalize(b, user)
        h.depersonalize(a)
        #expect(h.push(to: ["externalUserId": .string(user)]).bulk?["messageCount"] == 1)
        #expect(h.syncedIds(a).isEmpty)
    }

    /// Targeting keys: pushRegistrationId, tags (configured key `tags`), email, phoneNumber, $or, custom attributes.
    @Test func targetingKeys() {
        let a = h.register()
        let b = h.register()
        h.personalize(
            a,
            body: [
                "userIdentity": [
                    "externalUserId": "t-a", "emails": [["address": "a@example.com"]],
                    "phones": [["number": "385911111111"]],
                ],
                "userAttributes": ["tags": ["vip", "beta"]],
            ])
        h.mobile(
            .patch, "/mobile/1/appinstance/\(b)", caller: b, body: ["customAttributes": ["DeviceType": "business"]])
        #expect(h.push(to: ["pushRegistrationId": .string(b)]).bulk?["messageCount"] == 1)
        #expect(h.push(to: ["tags": "vip"]).bulk?["messageCount"] == 1)
        #expect(h.push(to: ["tags": ["nothing", "beta"]]).bulk?["messageCount"] == 1)
        #expect(h.push(to: ["tags": "nobody"]).bulk?["status"]?["name"] == "UNDELIVERABLE_NO_DESTINATION")
        #expect(h.push(to: ["email": "a@example.com"]).bulk?["messageCount"] == 1)
        #expect(h.push(to: ["phoneNumber": "385911111111"]).bulk?["messageCount"] == 1)
        #expect(
            h.push(to: ["$or": [["DeviceType": "business"], ["externalUserId": "t-a"]]]).bulk?["messageCount"] == 2)
        #expect(h.push(to: ["$or": "bad"]).bulk?["status"]?["name"] == "REJECTED_INVALID_QUERY")
    }

    @Test func pushValidation() {
        #expect(h.push(to: ["externalUserId": "x"], from: "unknown").bulk?["status"]?["id"] == 65)
        #expect(
            h.push(to: ["externalUserId": "x"], from: jwtAppCode).bulk?["status"]?["name"] == "REJECTED_NO_APPLICATION")
        let noTo = h.backend(
            .post, "/push/2/message/single", appCodeHeader: nil, body: ["from": .string(appCode), "text": "x"])
        #expect(noTo.status == 400 && noTo.messageId == "BAD_REQUEST")
        let noContent = h.backend(
            .post, "/push/2/message/single", appCodeHeader: nil,
            body: ["from": .string(appCode), "to": ["externalUserId": "x"]])
        #expect(noContent.bulk?["status"]?["name"] == "REJECTED_NO_CONTENT")
        #expect(h.backend(.post, "/push/2/message/single", appCodeHeader: nil, rawBody: "{").messageId == "BAD_REQUEST")
    }

    /// B7: one bulk per message.
    @Test func multi() {
        let user = freshUser()
        let a = h.register()
        h.personalize(a, user)
        let r = h.backend(
            .post, "/push/2/message/multi", appCodeHeader: nil,
            body: [
                "messages": [
                    ["from": .string(appCode), "to": ["externalUserId": .string(user)], "text": "1"],
                    ["from": .string(appCode), "to": ["externalUserId": "nobody"], "text": "2"],
                ]
            ])
        #expect(r.status == 200)
        #expect(r.json["bulks"]?.arrayValue?.map { $0["messageCount"] } == [1, 0])
        #expect(h.syncedIds(a).count == 1)
        #expect(h.backend(.post, "/push/2/message/multi", appCodeHeader: nil, body: ["messages": []]).status == 400)
    }

    /// B8: one entry per device reached; UNDELIVERABLE for an empty destination; E400 envelope on bad input.
    @Test func v3Messages() {
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user)
        h.personalize(b, user)
        h.setPrimary(a, true)
        let r = h.backend(
            .post, "/push/3/messages", appCodeHeader: nil,
            body: [
                "messages": [
                    [
                        "sender": .string(appCode),
                        "destinations": [
                            ["type": "EXTERNAL_USER_ID", "externalUserId": .string(user)],
                            [
                                "type": "EXTERNAL_USER_ID", "externalUserId": .string(user),
                                "targetOnlyPrimaryDevices": true,
                            ],
                            ["type": "REGISTRATION", "pushRegistrationId": .string(b)],
                            ["type": "EXTERNAL_USER_ID", "externalUserId": "nobody"],
                        ],
                        "content": ["type": "TEXT", "title": "T", "text": "Hi"],
                    ]
                ]
            ])
        #expect(r.status == 200)
        let messages = r.json["messages"]?.arrayValue ?? []
        #expect(messages.count == 5)
        #expect(messages.filter { $0["status"]?["name"] == "PENDING_ENROUTE" }.count == 4)
        #expect(messages.last?["status"]?["id"] == 66)
        #expect(messages.last?["destination"] == "nobody")
        #expect(messages[2]["destination"]?.stringValue == a)
        #expect(h.syncedIds(a).count == 2)
        #expect(h.syncedIds(b).count == 2)
        let bad = h.backend(
            .post, "/push/3/messages", appCodeHeader: nil,
            body: [
                "messages": [
                    ["sender": .string(appCode), "destinations": [["type": "NOPE"]], "content": ["text": "x"]]
                ]
            ])
        #expect(bad.status == 400)
        #expect(bad.json["errorCode"] == "E400")
        #expect(bad.json["violations"]?[0]?["property"] == "messages[0].destinations[0]")
        #expect(h.backend(.post, "/push/3/messages", appCodeHeader: nil, body: [:]).json["errorCode"] == "E400")
    }

    /// Disabled registrations are not reached.
    @Test func disabledRegistrationNotReached() {
        let user = freshUser()
        let a = h.register()
        h.personalize(a, user)
        h.mobile(.patch, "/mobile/1/appinstance/\(a)", caller: a, body: ["regEnabled": false])
        #expect(h.push(to: ["externalUserId": .string(user)]).bulk?["messageCount"] == 0)
    }

    /// M15 delivery report and M16 seen.
    @Test func deliveryReportAndSeen() {
        let user = freshUser()
        let a = h.register()
        h.personalize(a, user)
        _ = h.push(to: ["externalUserId": .string(user)])
        let id = h.syncedIds(a, platform: "APNS")[0]
        #expect(
            h.mobile(.post, "/mobile/1/messages/deliveryreport", caller: a, body: ["dlrIds": [.string(id)]]).status
                == 200)
        #expect(h.syncedIds(a).isEmpty)
        #expect(
            h.mobile(
                .post, "/mobile/2/messages/seen", caller: a,
                body: ["messages": [["messageId": .string(id), "timestampDelta": 3]]]
            ).status == 200)
        #expect(
            h.mobile(.post, "/mobile/2/messages/seen", caller: a, body: ["messages": [["timestampDelta": 3]]]).status
                == 400)
    }

    /// A device that never syncs keeps only its newest 500 pushes.
    @Test func pendingPushesAreBounded() {
        let user = freshUser()
        let a = h.register()
        h.personalize(a, user)
        for n in 0..<510 { _ = h.push(to: ["externalUserId": .string(user)], text: "n\(n)") }
        let payloads = h.sync(a)
        #expect(payloads.count == 500)
        #expect(payloads.first?["gcm.notification.body"] == "n10")
        #expect(payloads.last?["gcm.notification.body"] == "n509")
    }
}
