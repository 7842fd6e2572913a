import ConformCore
import Foundation
import Synchronization

@testable import ConformTraffic

/// A tiny stand-in for the messaging backend that mints random ids, for replay tests.
final class FakeMessagingHandler: HTTPHandler {
    struct Options {
        /// Adds a changing `createdAt` to registrations and a changing `X-Served-At` header.
        var volatileFields = false
        /// Answers personalize with the wrong person type: the faulty variant for differential tests.
        var faulty = false
        /// The application code accepted on mobile calls.
        var applicationCode = "conform-app-code"
    }

    private struct State {
        var devices: [String: String?] = [:]
        var counter = 0
    }

    let options: Options
    private let state = Mutex(State())

    init(_ options: Options = Options()) { self.options = options }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        let method = request.effectiveMethod
        let tick = state.withLock { s -> Int in
            s.counter += 1
            return s.counter
        }
        var extra: HTTPFields = ["Date": "tick \(tick)"]
        if options.volatileFields { extra["X-Served-At"] = "t-\(UUID().uuidString)" }
        if parts.first == "mobile", request.headerFields["Authorization"] != "App \(options.applicationCode)" {
            return .json(401, ["requestError": ["serviceException": ["messageId": "UNAUTHORIZED"]]], headers: extra)
        }
        switch (method, parts) {
        case (.post, ["mobile", "1", "appinstance"]):
            let id = UUID().uuidString.lowercased()
            state.withLock { $0.devices[id] = .some(nil) }
            var body: JSONValue = ["pushRegId": .string(id), "regEnabled": true]
            if options.volatileFields, case .object(var o) = body {
                o["createdAt"] = .string("2026-01-05T10:00:00Z#\(UUID().uuidString)")
                body = .object(o)
            }
            return .json(200, body, headers: extra)
        case (.post, let p) where p.count == 5 && p[4] == "personalize":
            let id = p[3]
            guard state.withLock({ $0.devices[id] != nil }) else { return noRegistration(extra) }
            let user = (try? JSONValue.parse(request.body))?["userIdentity"]?["externalUserId"]?.stringValue
            state.withLock { $0.devices[id] = .some(user) }
            return .json(
                200, ["externalUserId": .string(user ?? ""), "type": options.faulty ? "LEAD" : "CUSTOMER"],
                headers: extra)
        case (.post, let p) where p.count == 5 && p[4] == "depersonalize":
            state.withLock { $0.devices[p[3]] = .some(nil) }
            return .empty(200)
        case (.get, let p) where p.count == 5 && p[4] == "user":
            let id = p[3]
            guard let user = state.withLock({ $0.devices[id] }) else { return noRegistration(extra) }
            return .json(
                200,
                [
                    "externalUserId": user.map(JSONValue.string) ?? .null,
                    "instances": [["pushRegId": .string(id), "isPrimary": false]],
                ],
                headers: extra)
        case (.post, ["push", "2", "message", "single"]):
            let to = (try? JSONValue.parse(request.body))?["to"]?["externalUserId"]?.stringValue
            let count = state.withLock { s in s.devices.values.filter { $0 != nil && $0! == to }.count }
            return .json(
                200,
                [
                    "bulks": [
                        [
                            "bulkId": .string(UUID().uuidString), "messageCount": .int(count),
                            "to": ["externalUserId": .string(to ?? "")],
                        ]
                    ]
                ],
                headers: extra)
        default:
            return .json(404, ["requestError": ["serviceException": ["messageId": "NOT_FOUND"]]], headers: extra)
        }
    }

    private func noRegistration(_ headers: HTTPFields) -> HTTPResponse {
        .json(400, ["requestError": ["serviceException": ["messageId": "NO_REGISTRATION"]]], headers: headers)
    }
}

/// Records a client flow against `transport` the way the recording proxy would: two devices, a user switch, a push.
func recordFlow(
    into writer: RecordingWriter, transport: any Transport, appCode: String = "conform-app-code", devices: Int = 2
) async throws {
    func send(_ upstream: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await transport.send(request)
        try writer.append(upstream: upstream, request: request, response: response, startedAt: Date(), durationMs: 1)
        return response
    }
    let mobile = "http://mobile.conform.invalid"
    var ids: [String] = []
    for d in 0..<devices {
        let reg = try await send(
            "mobile",
            HTTPRequest(
                method: .post, url: "\(mobile)/mobile/1/appinstance?ri=true",
                headerFields: ["Authorization": "App \(appCode)", "Content-Type": "application/json"],
                body: Data(
                    #"{"pushServiceToken":"fcm-token-\#(d):APA91bXyZ0123456789abcdefghijk","os":"Android"}"#.utf8)))
        ids.append(try JSONValue.parse(reg.body)["pushRegId"]!.stringValue!)
    }
    for (d, id) in ids.enumerated() {
        let headers: HTTPFields = ["Authorization": "App \(appCode)", "pushregistrationid": id]
        _ = try await send(
            "mobile",
            HTTPRequest(
                method: .post,
                url:
                    "\(mobile)/mobile/1/appinstance/\(id)/personalize?forceDepersonalize=false&keepAsLead=false&setDeviceAsPrimary=false",
                headerFields: headers,
                body: Data(
                    #"{"userIdentity":{"externalUserId":"cust-\#(d)","emails":[{"address":"person\#(d)@mail.example.org"}],"phones":[{"number":"38598123456\#(d)"}]}}"#
                        .utf8)))
        _ = try await send(
            "mobile",
            HTTPRequest(method: .get, url: "\(mobile)/mobile/1/appinstance/\(id)/user?ri=true", headerFields: headers))
    }
    _ = try await send(
        "backend",
        HTTPRequest(
            method: .post, url: "http://backend.conform.invalid/push/2/message/single",
            headerFields: ["Authorization": "App conform-api-key"],
            body: Data(#"{"from":"\#(appCode)","to":{"externalUserId":"cust-0"},"text":"Hi"}"#.utf8)))
}
