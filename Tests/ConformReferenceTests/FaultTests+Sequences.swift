import ConformCore
import ConformReference
import Foundation
import Testing

/// Probes of the faults a single call does not show: each drives the sequence the fault needs (a second cycle on a
/// device, a sibling device, a second route) and checks the state the next step depends on.
let sequenceFaultProbes: [ReferenceFault: FaultProbe] = [
    .repeatedDepersonalizeRefused: { h in
        let id = h.register()
        h.personalize(id, freshUser())
        h.depersonalize(id)
        return (200..<300).contains(h.depersonalize(id).status.code)
    },
    .primaryOnlyWithoutPrimaryRefused: { h in
        let user = freshUser()
        let id = h.register()
        h.personalize(id, user)
        let v2 = h.push(to: ["externalUserId": .string(user)], onlyPrimary: true)
        let v3: JSONValue = [
            "messages": [
                [
                    "sender": .string(appCode), "content": ["text": "nobody"],
                    "destinations": [
                        ["type": "EXTERNAL_USER_ID", "externalUserId": .string(user), "targetOnlyPrimaryDevices": true]
                    ],
                ]
            ]
        ]
        let v3Status = h.backend(.post, "/push/3/messages", appCodeHeader: nil, body: v3).status.code
        return v2.status == 200 && v2.bulk?["messageCount"] == 0 && v3Status == 200
    },
    .depersonalizeKeepsUserData: { h in
        let id = h.register()
        let first: JSONValue = [
            "userIdentity": ["externalUserId": .string(freshUser())],
            "userAttributes": ["firstName": "Ana", "tags": ["vip"], "customAttributes": ["tier": "gold"]],
        ]
        h.personalize(id, body: first)
        h.depersonalize(id)
        let next = freshUser()
        h.personalize(id, next)
        let user = h.user(id).json
        return user["externalUserId"]?.stringValue == next && user["firstName"] == nil
            && (user["tags"]?.arrayValue ?? []).isEmpty && user["customAttributes"]?["tier"] == nil
    },
    .primaryKeptAcrossPersons: { h in
        let id = h.register()
        h.personalize(id, freshUser(), primary: true)
        h.depersonalize(id)
        h.personalize(id, freshUser())
        let instances = h.user(id).json["instances"]?.arrayValue ?? []
        return instances.count == 1 && instances[0]["isPrimary"] == false
    },
    .switchKeepsPendingPushes: { h in
        let first = freshUser()
        let id = h.register()
        h.personalize(id, first)
        h.push(to: ["externalUserId": .string(first)], text: "for the first user")
        h.push(to: ["pushRegistrationId": .string(id)], text: "for the device")
        h.personalize(id, freshUser(), force: true)
        let texts = h.sync(id).compactMap { $0["gcm.notification.body"]?.stringValue }
        return texts == ["for the device"]
    },
    .depersonalizeLogsOutSiblings: { h in
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user)
        h.personalize(b, user)
        h.depersonalize(a)
        return h.externalUserId(of: b) == user
    },
    .backendPersonalizePrimaryNotExclusive: { h in
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user, primary: true)
        h.personalize(b, user)
        let body: JSONValue = ["identity": ["externalId": .string(user)]]
        h.backend(.post, "/people/2/contactInformation/push/\(b)/personalize?setDeviceAsPrimary=true", body: body)
        let flags = (h.user(a).json["instances"]?.arrayValue ?? []).map {
            ($0["pushRegId"]?.stringValue ?? "", $0["isPrimary"]?.boolValue ?? false)
        }
        return flags.count == 2 && flags.allSatisfy { $0.1 == ($0.0 == b) }
    },
    .forcedReloginNewPerson: { h in
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user)
        h.personalize(b, user)
        h.personalize(a, user, force: true)
        let instances = (h.user(a).json["instances"]?.arrayValue ?? []).compactMap { $0["pushRegId"]?.stringValue }
        return Set(instances) == [a, b]
    },
    .deliveryReportedForAllDevices: { h in
        let user = freshUser()
        let a = h.register(dialect: .ios)
        let b = h.register()
        h.personalize(a, user)
        h.personalize(b, user)
        h.push(to: ["externalUserId": .string(user)], text: "to both")
        let onA = h.syncedIds(a, platform: "APNS")
        h.mobile(
            .post, "/mobile/1/messages/deliveryreport", caller: a, body: ["dlrIds": .array(onA.map(JSONValue.string))])
        return onA.count == 1 && h.syncedIds(b).count == 1
    },
]
