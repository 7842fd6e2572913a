import ConformCore

/// JSON shapes of installations, users and persons, in the mobile and backend dialects.
enum ReferenceRendering {
    /// Keys of an installation body that the reference keeps in dedicated fields.
    static let managedInstallationKeys: Set<String> = [
        "pushRegId", "isPrimary", "regEnabled", "notificationsEnabled", "customAttributes",
    ]
    /// Standard user attributes kept as sent.
    static let standardAttributes = ["firstName", "lastName", "middleName", "gender", "birthday"]
    /// Optional installation members of the SDK models (§3.1), rendered `null` when absent under `explicitNulls`.
    static let optionalInstallationFields = [
        "pushServiceToken", "pushServiceType", "sdkVersion", "appVersion", "os", "osVersion", "deviceManufacturer",
        "deviceModel", "deviceSecure", "language", "deviceTimezoneOffset", "deviceName", "applicationUserId",
    ]
    /// Optional `systemData` members of a PushApiInstance (§4.3), rendered `null` when absent under `explicitNulls`.
    static let optionalSystemDataFields = [
        "cloudType", "sdkVersion", "os", "osVersion", "osLanguage", "deviceManufacturer", "deviceModel",
        "applicationVersion", "deviceName", "deviceSecure", "deviceTimezoneOffset",
    ]

    /// The mobile installation JSON (§3.1): `pushRegId` first, then system data, flags and custom attributes.
    ///
    /// With `explicitNulls` every optional member of the SDK models that was never reported is `null`.
    static func installation(_ i: Installation, includePushRegId: Bool = true, explicitNulls: Bool = false)
        -> JSONValue
    {
        var o = JSONObject()
        if includePushRegId { o["pushRegId"] = .string(i.pushRegId) }
        for (key, value) in i.fields where !managedInstallationKeys.contains(key) { o[key] = value }
        if explicitNulls {
            for key in optionalInstallationFields where o[key] == nil { o[key] = .null }
        }
        o["regEnabled"] = .bool(i.regEnabled)
        o["isPrimary"] = .bool(i.isPrimary)
        o["notificationsEnabled"] = .bool(i.notificationsEnabled)
        o["customAttributes"] = .object(i.customAttributes)
        return .object(o)
    }

    /// The mobile user JSON (§3.3), with `instances` when asked (M7).
    ///
    /// With `explicitNulls` a missing externalUserId, standard attribute or `customAttributes` is `null`, missing
    /// `phones`, `emails` and `tags` are `[]`, and `instances` is `null` where it is not sent (M4, M8: an empty
    /// list would claim the person has no device).
    static func user(_ p: Person, instances: [Installation]?, showStale: Bool = false, explicitNulls: Bool = false)
        -> JSONValue
    {
        var o = JSONObject()
        if let ext = p.externalUserId ?? (showStale ? p.staleExternalUserId : nil) {
            o["externalUserId"] = .string(ext)
        } else if explicitNulls {
            o["externalUserId"] = .null
        }
        for key in standardAttributes {
            if let value = p.attributes[key] {
                o[key] = key == "gender" ? mobileGender(value) : value
            } else if explicitNulls {
                o[key] = .null
            }
        }
        if !p.phones.isEmpty || explicitNulls {
            o["phones"] = .array(p.phones.map { ["number": .string($0), "preferred": false] })
        }
        if !p.emails.isEmpty || explicitNulls {
            o["emails"] = .array(p.emails.map { ["address": .string($0), "preferred": false] })
        }
        if !p.tags.isEmpty || explicitNulls { o["tags"] = .array(p.tags.map(JSONValue.string)) }
        if !p.customAttributes.isEmpty {
            o["customAttributes"] = .object(p.customAttributes)
        } else if explicitNulls {
            o["customAttributes"] = .null
        }
        o["type"] = .string(p.type)
        if let instances {
            o["instances"] = .array(instances.map { installation($0, explicitNulls: explicitNulls) })
        } else if explicitNulls {
            o["instances"] = .null
        }
        return .object(o)
    }

    /// The backend PushApiInstance (§4.3); with `explicitNulls` every unknown `systemData` member is `null`.
    static func pushInstance(_ i: Installation, explicitNulls: Bool = false) -> JSONValue {
        var system = JSONObject()
        if let type = i.fields["pushServiceType"]?.stringValue { system["cloudType"] = .string(cloudType(type)) }
        system["registrationEnabled"] = .bool(i.regEnabled)
        system["notificationsEnabled"] = .bool(i.notificationsEnabled)
        let renamed = ["language": "osLanguage", "appVersion": "applicationVersion"]
        for key in [
            "sdkVersion", "os", "osVersion", "language", "deviceManufacturer", "deviceModel", "appVersion",
            "deviceName",
            "deviceSecure", "deviceTimezoneOffset",
        ] {
            if let value = i.fields[key] { system[renamed[key] ?? key] = value }
        }
        if explicitNulls {
            for key in optionalSystemDataFields where system[key] == nil { system[key] = .null }
        }
        return [
            "registrationId": .string(i.pushRegId), "applicationId": .string(i.applicationId),
            "isPrimary": .bool(i.isPrimary), "systemData": .object(system),
            "additionalData": .object(i.customAttributes),
        ]
    }

    /// The backend person (§4.1, §4.4), with `contactInformation.push[]` when `push` is given.
    ///
    /// With `explicitNulls` a missing `externalId` or standard attribute is `null`, and so is `push` when it
    /// is not asked for (an empty list would claim the person has no device).
    static func backendPerson(_ p: Person, push: [Installation]?, explicitNulls: Bool = false) -> JSONValue {
        var o = JSONObject()
        if let ext = p.externalUserId {
            o["externalId"] = .string(ext)
        } else if explicitNulls {
            o["externalId"] = .null
        }
        for key in standardAttributes {
            if let value = p.attributes[key] {
                o[key] = key == "gender" ? .string(value.text.uppercased()) : value
            } else if explicitNulls {
                o[key] = .null
            }
        }
        o["type"] = .string(p.type)
        o["tags"] = .array(p.tags.map(JSONValue.string))
        o["customAttributes"] = .object(p.customAttributes)
        var contact = JSONObject()
        contact["phones"] = .array(p.phones.map { ["number": .string($0)] })
        contact["emails"] = .array(p.emails.map { ["address": .string($0)] })
        if let push {
            contact["push"] = .array(push.map { pushInstance($0, explicitNulls: explicitNulls) })
        } else if explicitNulls {
            contact["push"] = .null
        }
        o["contactInformation"] = .object(contact)
        return .object(o)
    }

    static func cloudType(_ pushServiceType: String) -> String {
        switch pushServiceType.uppercased() {
        case "APNS": "APNS"
        case "HMS": "HMS"
        case "WEB": "WEB"
        default: "GCM"
        }
    }

    /// `Male`/`Female` as the mobile API writes them, whatever case was stored.
    static func mobileGender(_ value: JSONValue) -> JSONValue {
        guard let s = value.stringValue, !s.isEmpty else { return value }
        return .string(s.prefix(1).uppercased() + s.dropFirst().lowercased())
    }
}
