import ConformCore
import ConformReference
import Foundation

/// The two SDK dialects: Android (POST + override, `true`/`false`), iOS (real PATCH, sorted `1`/`0`).
enum Dialect: CaseIterable, Sendable, CustomStringConvertible {
    case android, ios
    var description: String { self == .android ? "android" : "ios" }
}

let appCode = "conform-app-code"
let apiKey = "conform-api-key"
let jwtAppCode = "conform-jwt-app-code"
let jwtAPIKey = "conform-jwt-api-key"
let restrictedAppCode = "conform-restricted-app-code"
let restrictedAPIKey = "conform-restricted-api-key"
let mobileBase = "http://mobile.conform.invalid"
let backendBase = "http://backend.conform.invalid"

/// Drives one reference instance the way the SDKs and a customer backend do.
struct Harness {
    let reference: ReferenceImplementation

    init(faults: Set<ReferenceFault> = [], configuration: ReferenceConfiguration = .default) {
        reference = ReferenceImplementation(configuration: configuration, faults: faults)
    }

    /// Drives an implementation made elsewhere (with variants, or a test clock).
    init(_ reference: ReferenceImplementation) { self.reference = reference }

    func send(_ method: HTTPMethod, _ url: String, headers: HTTPFields = [:], body: String? = nil) -> HTTPResponse {
        var fields = headers
        if body != nil { fields["Content-Type"] = "application/json" }
        return reference.handle(
            HTTPRequest(method: method, url: url, headerFields: fields, body: Data((body ?? "").utf8)))
    }

    /// A mobile call; `auth` defaults to `App <code>`, PATCH follows the dialect (D14).
    @discardableResult
    func mobile(
        _ method: HTTPMethod, _ target: String, code: String = appCode, auth: String? = nil, caller: String? = nil,
        body: JSONValue? = nil, rawBody: String? = nil, dialect: Dialect = .ios
    ) -> HTTPResponse {
        var headers: HTTPFields = ["Authorization": auth ?? "App \(code)", "Accept": "application/json"]
        if let caller { headers["pushregistrationid"] = caller }
        var wireMethod = method
        if method == .patch && dialect == .android {
            wireMethod = .post
            headers["X-HTTP-Method-Override"] = "PATCH"
        }
        return send(wireMethod, mobileBase + target, headers: headers, body: rawBody ?? body?.serialized())
    }

    /// A backend call with `App <apiKey>` and, for People endpoints, `AppCode`.
    func backend(
        _ method: HTTPMethod, _ target: String, key: String = apiKey, appCodeHeader: String? = appCode,
        body: JSONValue? = nil, rawBody: String? = nil
    ) -> HTTPResponse {
        var headers: HTTPFields = ["Authorization": "App \(key)"]
        if let appCodeHeader { headers["AppCode"] = appCodeHeader }
        return send(method, backendBase + target, headers: headers, body: rawBody ?? body?.serialized())
    }

    /// M1; returns the new pushRegId.
    func register(code: String = appCode, dialect: Dialect = .android, body: JSONValue? = nil) -> String {
        let query = dialect == .android ? "?ri=true" : "?rt=1"
        let os: JSONValue = dialect == .android ? "Android" : "iOS"
        let payload: JSONValue =
            body ?? [
                "pushServiceToken": .string("token-\(UUID().uuidString)"),
                "pushServiceType": dialect == .android ? "Firebase" : "APNS", "regEnabled": true, "os": os,
                "sdkVersion": "15.1.0",
            ]
        let response = mobile(.post, "/mobile/1/appinstance" + query, code: code, body: payload)
        return response.json["pushRegId"]?.stringValue ?? ""
    }

    /// The personalize query in the dialect's encoding (D13).
    static func personalizeQuery(force: Bool, keepAsLead: Bool, primary: Bool, dialect: Dialect) -> String {
        switch dialect {
        case .android:
            // HashMap order: not sorted.
            "setDeviceAsPrimary=\(primary)&forceDepersonalize=\(force)&keepAsLead=\(keepAsLead)"
        case .ios:
            "forceDepersonalize=\(force ? 1 : 0)&keepAsLead=\(keepAsLead ? 1 : 0)&setDeviceAsPrimary=\(primary ? 1 : 0)"
        }
    }

    /// M4 with `{"userIdentity":{"externalUserId":…}}` unless `body` is given.
    @discardableResult
    func personalize(
        _ id: String, _ externalUserId: String? = nil, force: Bool = false, keepAsLead: Bool = false,
        primary: Bool = false,
        dialect: Dialect = .android, code: String = appCode, auth: String? = nil, body: JSONValue? = nil
    ) -> HTTPResponse {
        let query = Self.personalizeQuery(force: force, keepAsLead: keepAsLead, primary: primary, dialect: dialect)
        let payload = body ?? ["userIdentity": ["externalUserId": externalUserId.map(JSONValue.string) ?? .null]]
        return mobile(
            .post, "/mobile/1/appinstance/\(id)/personalize?\(query)", code: code, auth: auth, caller: id,
            body: payload,
            dialect: dialect)
    }

    @discardableResult
    func depersonalize(_ id: String, caller: String? = nil, code: String = appCode) -> HTTPResponse {
        mobile(.post, "/mobile/1/appinstance/\(id)/depersonalize", code: code, caller: caller ?? id)
    }

    func user(_ id: String, code: String = appCode, auth: String? = nil) -> HTTPResponse {
        mobile(.get, "/mobile/1/appinstance/\(id)/user?ri=1&rt=0", code: code, auth: auth, caller: id)
    }

    /// M2 `{"isPrimary": flag}` on `id`, sent by `caller`.
    @discardableResult
    func setPrimary(_ id: String, _ flag: Bool, caller: String? = nil, dialect: Dialect = .ios) -> HTTPResponse {
        mobile(
            .patch, "/mobile/1/appinstance/\(id)", caller: caller ?? id, body: ["isPrimary": .bool(flag)],
            dialect: dialect)
    }

    /// B6 to `to`; returns the response.
    func push(
        to: JSONValue, onlyPrimary: Bool? = nil, text: String = "Hi", key: String = apiKey, from: String = appCode
    ) -> HTTPResponse {
        var body: JSONValue = ["from": .string(from), "to": to, "text": .string(text)]
        if let onlyPrimary, case .object(var o) = body {
            o["targetOnlyPrimaryDevices"] = .bool(onlyPrimary)
            body = .object(o)
        }
        return backend(.post, "/push/2/message/single", key: key, appCodeHeader: nil, body: body)
    }

    /// M14 as `id`; returns the payloads.
    func sync(
        _ id: String, platform: String = "GCM", mIDs: [String] = [], drIDs: [String] = [], code: String = appCode
    ) -> [JSONValue] {
        var body = JSONObject()
        if !mIDs.isEmpty { body["mIDs"] = .array(mIDs.map(JSONValue.string)) }
        if !drIDs.isEmpty { body["drIDs"] = .array(drIDs.map(JSONValue.string)) }
        let response = mobile(
            .post, "/mobile/5/messages?platformType=\(platform)", code: code, caller: id,
            rawBody: body.isEmpty ? nil : JSONValue.object(body).serialized())
        return response.json["payloads"]?.arrayValue ?? []
    }

    /// Message ids of a GCM or APNS sync.
    func syncedIds(_ id: String, platform: String = "GCM", mIDs: [String] = [], drIDs: [String] = []) -> [String] {
        sync(id, platform: platform, mIDs: mIDs, drIDs: drIDs).compactMap {
            ($0["gcm.notification.messageId"] ?? $0["messageId"])?.stringValue
        }
    }

    /// The externalUserId GET user shows for `id`.
    func externalUserId(of id: String) -> String? { user(id).json["externalUserId"]?.stringValue }

    /// The JWT app's token for `sub`.
    func token(_ sub: String, expiresAt: Date = Date().addingTimeInterval(600)) -> String {
        ReferenceConfiguration.default.application(id: "jwt")!.userDataToken(externalUserId: sub, expiresAt: expiresAt)!
    }
}

extension HTTPResponse {
    var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
    /// `requestError.serviceException.messageId`.
    var messageId: String? { json["requestError"]?["serviceException"]?["messageId"]?.stringValue }
    var bulk: JSONValue? { json["bulks"]?[0] }
}

/// A fresh externalUserId, so tests never collide.
func freshUser(_ prefix: String = "user") -> String { "\(prefix)-\(UUID().uuidString.prefix(8))" }
