import ConformCore
import ConformCrypto
import ConformReference
import Foundation
import Testing

/// Probes of the faults on M4 attributes, M6 on another device, M8, M11, M12, M15, M16, B3, B7 and B8 behaviour.
let coverageFaultProbes: [ReferenceFault: FaultProbe] = [
    .baseURLNotServed: { h in
        let id = h.register()
        guard let base = h.mobile(.get, "/mobile/1/baseurl").json["baseUrl"]?.stringValue else { return false }
        let response = h.send(
            .get, base + "/mobile/1/appinstance/\(id)", headers: ["Authorization": "App \(appCode)"])
        return response.status == 200 && response.json["pushRegId"]?.stringValue == id
    },
    .newBaseURLNotAbsolute: { h in
        let id = h.register()
        let announced = h.mobile(.get, "/mobile/1/appinstance/\(id)", caller: id).headerFields["New-Base-URL"]
        return announced.map { $0.hasPrefix("http://") || $0.hasPrefix("https://") } ?? true
    },
    .deleteInstallationNoop: { h in
        let id = h.register()
        let deleted = h.mobile(.delete, "/mobile/1/appinstance/\(id)", caller: id).status == 200
        return deleted && h.mobile(.get, "/mobile/1/appinstance/\(id)").messageId == "NO_REGISTRATION"
    },
    .deliveryReportWrongKey: { h in
        let id = h.register(dialect: .ios)
        h.push(to: ["pushRegistrationId": .string(id)])
        let messageId = h.syncedIds(id, platform: "APNS").first ?? ""
        let report = h.mobile(
            .post, "/mobile/1/messages/deliveryreport", caller: id, body: ["dlrIds": [.string(messageId)]])
        return report.status == 200 && h.syncedIds(id, platform: "APNS").isEmpty
    },
    .seenAfterDeliveryRefused: { h in
        let id = h.register()
        h.push(to: ["pushRegistrationId": .string(id)])
        let messageId = h.syncedIds(id).first ?? ""
        _ = h.syncedIds(id, drIDs: [messageId])
        let seen: JSONValue = ["messages": [["messageId": .string(messageId), "timestampDelta": 2]]]
        return h.mobile(.post, "/mobile/2/messages/seen", caller: id, body: seen).status == 200
    },
    .pushMultiSendsOnlyFirst: { h in
        let a = h.register()
        let b = h.register()
        let body: JSONValue = [
            "messages": [
                ["from": .string(appCode), "to": ["pushRegistrationId": .string(a)], "text": "first"],
                ["from": .string(appCode), "to": ["pushRegistrationId": .string(b)], "text": "second"],
            ]
        ]
        let response = h.backend(.post, "/push/2/message/multi", appCodeHeader: nil, body: body)
        return response.json["bulks"]?.arrayValue?.count == 2 && h.syncedIds(b).count == 1
    },
    .v3TargetOnlyPrimaryIgnored: { h in
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user, primary: true)
        h.personalize(b, user)
        let body: JSONValue = [
            "messages": [
                [
                    "sender": .string(appCode), "content": ["type": "TEXT", "text": "primary only"],
                    "destinations": [
                        ["type": "EXTERNAL_USER_ID", "externalUserId": .string(user), "targetOnlyPrimaryDevices": true]
                    ],
                ]
            ]
        ]
        let response = h.backend(.post, "/push/3/messages", appCodeHeader: nil, body: body)
        return response.status == 200 && h.syncedIds(a).count == 1 && h.syncedIds(b).isEmpty
    },
    .v3ErrorsInStandardEnvelope: { h in
        let body: JSONValue = ["messages": [["sender": .string(appCode), "destinations": [["type": "NOPE"]]]]]
        let response = h.backend(.post, "/push/3/messages", appCodeHeader: nil, body: body)
        return response.status == 400 && response.json["errorCode"] == "E400"
            && response.json["violations"]?.arrayValue?.isEmpty == false
    },
    .otherDepersonalizeActsOnCaller: { h in
        let user = freshUser()
        let (a, b) = (h.register(), h.register())
        h.personalize(a, user)
        h.personalize(b, user)
        return h.depersonalize(b, caller: a).status == 200 && h.externalUserId(of: a) == user
            && h.externalUserId(of: b) == nil
    },
    .backendAttributesIgnored: { h in
        let id = h.register()
        let body: JSONValue = [
            "identity": ["externalId": .string(freshUser())], "attributes": ["tags": ["vip"]],
        ]
        return h.backend(.post, "/people/2/contactInformation/push/\(id)/personalize", body: body).json["tags"]
            == ["vip"]
    },
    .tagsReadFromInstallation: { h in
        let id = h.register()
        let tag = freshUser("tag")
        h.personalize(
            id,
            body: [
                "userIdentity": ["externalUserId": .string(freshUser())], "userAttributes": ["tags": [.string(tag)]],
            ])
        return h.push(to: ["tags": .string(tag)]).bulk?["messageCount"] == 1 && h.syncedIds(id).count == 1
    },
    .jwtApiKeyClaimNotChecked: { h in
        let id = h.register(code: jwtAppCode)
        let user = freshUser()
        let token = jwtSigned(sub: user, appClaim: "not-this-app", kid: "conform-kid")
        return h.personalize(id, user, code: jwtAppCode, auth: "Bearer \(token)").status == 401
    },
    .jwtKidNotChecked: { h in
        let id = h.register(code: jwtAppCode)
        let user = freshUser()
        let token = jwtSigned(sub: user, appClaim: jwtAppCode, kid: "unknown-kid")
        return h.personalize(id, user, code: jwtAppCode, auth: "Bearer \(token)").status == 401
    },
    .jwtExternalUserIdChangeAllowed: { h in
        let id = h.register(code: jwtAppCode)
        let user = freshUser()
        h.personalize(id, user, code: jwtAppCode, auth: "Bearer \(h.token(user))")
        let patch = h.mobile(
            .patch, "/mobile/1/appinstance/\(id)/user", code: jwtAppCode, auth: "Bearer \(h.token(user))", caller: id,
            body: ["externalUserId": .string(freshUser())])
        return patch.status == 401
    },
    .systemDataPatchIgnored: { h in
        let id = h.register()
        h.mobile(.patch, "/mobile/1/appinstance/\(id)", caller: id, body: ["appVersion": "9.9.9"])
        return h.mobile(.get, "/mobile/1/appinstance/\(id)", caller: id).json["appVersion"] == "9.9.9"
    },
    .sessionTimestampColonOnly: { h in
        let id = h.register()
        let body: JSONValue = [
            "sessionStarts": ["2026-01-05T10:00:00+0100"],
            "sessionBounds": ["2026-01-04T09:00:00+0100": "2026-01-04T09:05:12+0100"],
        ]
        return h.mobile(.post, "/mobile/1/appinstance/\(id)/user/events/session", caller: id, body: body).status == 200
    },
    .disabledRegistrationReached: { h in
        let id = h.register()
        h.mobile(.patch, "/mobile/1/appinstance/\(id)", caller: id, body: ["regEnabled": false])
        h.push(to: ["pushRegistrationId": .string(id)])
        return h.syncedIds(id).isEmpty
    },
    .restrictedRefusesRead: { h in
        let code = "conform-restricted-app-code"
        let id = h.register(code: code)
        return h.user(id, code: code).status == 200
    },
    .restrictedAccessReadAllowed: { h in
        let code = "conform-restricted-access-app-code"
        let id = h.register(code: code)
        return h.user(id, code: code).messageId == "USER_DATA_RESTRICTED"
    },
    .keepAsLeadIgnored: { h in
        h.personalize(h.register(), freshUser(), keepAsLead: true).json["type"] == "LEAD"
    },
    .patchUserNullsIgnored: { h in
        let id = h.register()
        h.personalize(
            id,
            body: [
                "userIdentity": ["externalUserId": .string(freshUser())],
                "userAttributes": ["lastName": "Doe", "customAttributes": ["tier": "gold"]],
            ])
        h.mobile(
            .patch, "/mobile/1/appinstance/\(id)/user", caller: id,
            body: ["lastName": .null, "customAttributes": ["tier": .null]], dialect: .android)
        let user = h.user(id).json
        return user["lastName"] == nil && user["customAttributes"]?["tier"] == nil
    },
    .mergeConflictsIgnored: { h in
        let (a, b) = (h.register(), h.register())
        let (first, second) = (freshUser(), freshUser())
        h.personalize(a, body: ["userIdentity": ["externalUserId": .string(first), "emails": [["address": "a@x.io"]]]])
        h.personalize(
            b, body: ["userIdentity": ["externalUserId": .string(second), "emails": [["address": "b@x.io"]]]])
        let renamed = h.mobile(
            .patch, "/mobile/1/appinstance/\(a)/user", caller: a, body: ["externalUserId": .string(second)])
        let ambiguous = h.personalize(
            h.register(), body: ["userIdentity": ["emails": [["address": "a@x.io"], ["address": "b@x.io"]]]])
        return renamed.messageId == "USER_MERGE_INTERRUPTED"
            && ambiguous.messageId == "AMBIGUOUS_PERSONALIZE_CANDIDATES"
    },
]

/// An HS256 token signed with the JWT profile's secret, with any `infobip-api-key` claim and `kid`.
private func jwtSigned(sub: String, appClaim: String, kid: String) -> String {
    let secret = Hex.decode("636f6e666f726d2d6a77742d7365637265742d6b65792d3031") ?? []
    let now = Int(Date().timeIntervalSince1970)
    let claims: JSONValue = [
        "typ": "Bearer", "sub": .string(sub), "infobip-api-key": .string(appClaim), "iat": .int(now),
        "exp": .int(now + 600), "jti": .string(UUID().uuidString),
    ]
    return JWT.signHS256(claims: claims.serialized(), keyID: kid, secret: secret)
}
