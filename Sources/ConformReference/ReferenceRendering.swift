import ConformCore

/// JSON shapes of installations, users and persons, in the mobile and backend dialects.
enum ReferenceRendering {
    /// Keys of an installation body that the reference keeps in dedicated fields.
    static let managedInstallationKeys: Set<String> = [
        "pushRegId", "isPrimary", "regEnabled", "notificationsEnabled", "customAttributes",
    ]
    /// Standard user attributes kept as sent.
    static let standardAttributes = ["firstName", "lastName", "middleName", "gender", "birthday"]

    /// The mobile installation JSON (§3.1): `pushRegId` first, then system data, flags and custom attributes.
    static func installation(_ i: Installation, includePushRegId: Bool = true) -> JSONValue {
        var o = JSONObject()
        if includePushRegId { o["pushRegId"] = .string(i.pushRegId) }
        for (key, value) in i.fields where !managedInstallationKeys.contains(key) { o[key] = value }
        o["regEnabled"] = .bool(i.regEnabled)
        o["isPrimary"] = .bool(i.isPrimary)
        o["notificationsEnabled"] = .bool(i.notificationsEnabled)
        o["customAttributes"] = .object(i.customAttributes)
        return .object(o)
    }

    /// The mobile user JSON (§3.3), with `instances` when asked (M7).
    static func user(_ p: Person, instances: [Installation]?, showStale: Bool = false) -> JSONValue {
        var o = JSONObject()
        if let ext = p.externalUserId ?? (showStale ? p.staleExternalUserId : nil) {
            o["externalUserId"] = .string(ext)
        }
        for key in standardAttributes {
            if let value = p.attributes[key] { o[key] = key == "gender" ? mobileGender(value) : value }
        }
        if !p.phones.isEmpty { o["phones"] = .array(p.phones.map { ["number": .string($0), "preferred": false] }) }
        if !p.emails.isEmpty { o["emails"] = .array(p.emails.map { ["address": .string($0), "preferred": false] }) }
        if !p.tags.isEmpty { o["tags"] = .array(p.tags.map(JSONValue.string)) }
        if !p.customAttributes.isEmpty { o["customAttributes"] = .object(p.customAttributes) }
        o["type"] = .string(p.type)
        if let instances { o["instances"] = .array(instances.map { installation($0) }) }
        return .object(o)
    }

    /// The backend PushApiInstance (§4.3).
    static func pushInstance(_ i: Installation) -> JSONValue {
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
        return [
            "registrationId": .string(i.pushRegId), "applicationId": .string(i.applicationId),
            "isPrimary": .bool(i.isPrimary), "systemData": .object(system),
            "additionalData": .object(i.customAttributes),
        ]
    }

    /// The backend person (§4.1, §4.4), with `contactInformation.push[]` when `push` is given.
    static func backendPerson(_ p: Person, push: [Installation]?) -> JSONValue {
        var o = JSONObject()
        if let ext = p.externalUserId { o["externalId"] = .string(ext) }
        for key in standardAttributes {
            if let value = p.attributes[key] { o[key] = key == "gender" ? .string(value.text.uppercased()) : value }
        }
        o["type"] = .string(p.type)
        o["tags"] = .array(p.tags.map(JSONValue.string))
        o["customAttributes"] = .object(p.customAttributes)
        var contact = JSONObject()
        contact["phones"] = .array(p.phones.map { ["number": .string($0)] })
        contact["emails"] = .array(p.emails.map { ["address": .string($0)] })
        if let push { contact["push"] = .array(push.map(pushInstance)) }
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
