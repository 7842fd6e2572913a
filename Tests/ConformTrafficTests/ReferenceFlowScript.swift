import ConformCore
import Foundation

@testable import ConformTraffic

/// A scripted client run of the whole flow (an Android and an iOS device, the customer backend), recorded as the
/// recording proxy would record it.
enum ReferenceFlowScript {
    static let mobile = "http://mobile.conform.invalid"
    static let backend = "http://backend.conform.invalid"
    static let appCode = "conform-app-code"
    /// First 10 hex digits of SHA-256("conform-app-code"), as the SDKs send it.
    static let appCodeHash = "applicationcode"

    static func run(into writer: RecordingWriter, transport: any Transport) async throws {
        func send(_ upstream: String, _ method: HTTPMethod, _ url: String, _ headers: HTTPFields, _ body: String = "")
            async throws -> JSONValue?
        {
            var fields = headers
            if !body.isEmpty { fields["Content-Type"] = "application/json" }
            let request = HTTPRequest(method: method, url: url, headerFields: fields, body: Data(body.utf8))
            let started = Date()
            let response = try await transport.send(request)
            try writer.append(
                upstream: upstream, request: request, response: response, startedAt: started,
                durationMs: Date().timeIntervalSince(started) * 1000)
            return try? JSONValue.parse(response.body)
        }
        let androidUA = "Infobip Mobile API Client/15.1.0(Android;14;arm64-v8a;Pixel 8;Google;Shop;3.2.0;Pixel 8;;;;;;)"
        let iosUA = "MobileMessaging/15.5.2(iOS;17.4;;iPhone15,2;;Shop;3.2.0;iPhone;;;)"
        func android(_ reg: String? = nil) -> HTTPFields {
            var h: HTTPFields = [
                "Authorization": "App \(appCode)", "User-Agent": androidUA, "Accept": "application/json",
                "foreground": "true",
            ]
            if let reg { h["pushregistrationid"] = reg }
            return h
        }
        func ios(_ reg: String? = nil) -> HTTPFields {
            var h: HTTPFields = [
                "Authorization": "App \(appCode)", "User-Agent": iosUA, "Accept": "application/json",
                "foreground": "true",
            ]
            if let reg { h["pushregistrationid"] = reg }
            return h
        }
        let people: HTTPFields = ["Authorization": "App conform-api-key", "AppCode": appCode]
        let push: HTTPFields = ["Authorization": "App conform-api-key"]

        // Step 1: both devices register.
        let regA = try await send(
            "mobile", .post, "\(mobile)/mobile/1/appinstance?ri=true", android(),
            #"{"pushServiceToken":"dKq3xY7TQpe:APA91bF2mZ0oTqg7H1kYw3d9VbR5nC8sLp4XuE6jQa0","pushServiceType":"Firebase","regEnabled":true,"notificationsEnabled":true,"sdkVersion":"15.1.0","os":"Android","osVersion":"14","deviceModel":"Pixel 8"}"#
        )
        let a = regA?["pushRegId"]?.stringValue ?? "missing"
        let regB = try await send(
            "mobile", .post, "\(mobile)/mobile/1/appinstance?rt=1", ios(),
            #"{"pushServiceToken":"9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0","pushServiceType":"APNS","notificationsEnabled":true,"os":"iOS","osVersion":"17.4"}"#
        )
        let b = regB?["pushRegId"]?.stringValue ?? "missing"

        // Step 2 and 5: Android personalizes and becomes primary; Step 7: updates the user; Step 6: reads it.
        _ = try await send(
            "mobile", .post,
            "\(mobile)/mobile/1/appinstance/\(a)/personalize?forceDepersonalize=false&keepAsLead=false&setDeviceAsPrimary=true",
            android(a),
            #"{"userIdentity":{"externalUserId":"cust-ana","phones":[{"number":"385981234567"}],"emails":[{"address":"ana.kovac@mail.example.org"}]},"userAttributes":{"firstName":"Ana"}}"#
        )
        var patch = android(a)
        patch["X-HTTP-Method-Override"] = "PATCH"
        _ = try await send("mobile", .post, "\(mobile)/mobile/1/appinstance/\(a)/user", patch, #"{"lastName":"Kovač"}"#)
        _ = try await send("mobile", .get, "\(mobile)/mobile/1/appinstance/\(a)/user?ri=true", android(a))

        // The iOS device joins the same person (iOS dialect: 1/0, sorted keys), then reads the user.
        _ = try await send(
            "mobile", .post,
            "\(mobile)/mobile/1/appinstance/\(b)/personalize?forceDepersonalize=0&keepAsLead=0&setDeviceAsPrimary=0",
            ios(b), #"{"userIdentity":{"externalUserId":"cust-ana"}}"#)
        _ = try await send("mobile", .get, "\(mobile)/mobile/1/appinstance/\(b)/user?ri=1&rt=0", ios(b))

        // Step 8: the backend pushes to the primary device only; the Android device syncs and reports delivery.
        _ = try await send(
            "backend", .post, "\(backend)/push/2/message/single", push,
            #"{"from":"conform-app-code","to":{"externalUserId":"cust-ana"},"text":"Your order shipped","targetOnlyPrimaryDevices":true}"#
        )
        let synced = try await send("mobile", .post, "\(mobile)/mobile/5/messages?platformType=GCM", android(a), "{}")
        let messageId = synced?["payloads"]?[0]?["gcm.notification.messageId"]?.stringValue ?? "none"
        _ = try await send(
            "mobile", .post, "\(mobile)/mobile/5/messages?platformType=GCM", android(a), #"{"drIDs":["\#(messageId)"]}"#
        )

        // Another user logs in on the iOS device (user switch), then logs out (step 3).
        _ = try await send(
            "mobile", .post,
            "\(mobile)/mobile/1/appinstance/\(b)/personalize?forceDepersonalize=1&keepAsLead=0&setDeviceAsPrimary=0",
            ios(b), #"{"userIdentity":{"externalUserId":"cust-ivo","emails":[{"address":"ivo@mail.example.org"}]}}"#)
        _ = try await send("mobile", .post, "\(mobile)/mobile/1/appinstance/\(b)/depersonalize", ios(b))

        // Server-side personalization and lookup (People API), then a v3 push to the person.
        _ = try await send(
            "backend", .post, "\(backend)/people/2/contactInformation/push/\(b)/personalize?forceDepersonalize=true",
            people,
            #"{"identity":{"externalId":"cust-ivo"}}"#)
        _ = try await send("backend", .get, "\(backend)/people/2/persons?identifier=cust-ivo&type=EXTERNAL_ID", push)
        _ = try await send(
            "backend", .post, "\(backend)/push/3/messages", push,
            #"{"messages":[{"sender":"conform-app-code","destinations":[{"type":"EXTERNAL_USER_ID","externalUserId":"cust-ana"}],"content":{"type":"TEXT","title":"Hi","text":"Welcome back"}}]}"#
        )

        // Step 3 on Android: explicit logout.
        _ = try await send("mobile", .post, "\(mobile)/mobile/1/appinstance/\(a)/depersonalize", android(a))
    }
}
