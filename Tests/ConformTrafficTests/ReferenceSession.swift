import ConformCore
import ConformReference
import Foundation

@testable import ConformFlowCheck
@testable import ConformTraffic

/// A client trace made of real exchanges with the embedded reference (real pushRegIds, user JSON, listings and
/// timings), with app events placed where a test harness would post them.
struct ReferenceSession {
    let transport = InProcessTransport(ReferenceImplementation())
    var records: [TraceRecord] = []
    var appCode = "conform-app-code"
    var apiKey = "conform-api-key"

    var exchanges: [RecordedExchange] { records.compactMap { if case .exchange(let e) = $0 { e } else { nil } } }

    @discardableResult
    mutating func send(
        _ method: HTTPMethod, _ path: String, device: String? = nil, backend: Bool = false, body: String = ""
    ) async throws -> JSONValue? {
        var headers: HTTPFields = ["Authorization": "App \(backend ? apiKey : appCode)"]
        if backend, path.hasPrefix("/people/2/contactInformation") { headers["AppCode"] = appCode }
        if let device { headers["pushregistrationid"] = device }
        if !body.isEmpty { headers["Content-Type"] = "application/json" }
        let base = backend ? "http://backend.conform.invalid" : "http://mobile.conform.invalid"
        let request = HTTPRequest(method: method, url: base + path, headerFields: headers, body: Data(body.utf8))
        let started = Date()
        let response = try await transport.send(request)
        let exchange = RecordedExchange(
            seq: records.count + 1, flow: FlowKey.derive(request: request, response: response),
            upstream: backend ? "backend" : "mobile", startedAt: started,
            durationMs: Date().timeIntervalSince(started) * 1000, request: request, response: response)
        records.append(.exchange(exchange))
        return try? JSONValue.parse(response.body)
    }

    mutating func event(_ kind: AppEvent.Kind, device: String? = nil, user: String? = nil) {
        records.append(
            .event(AppEvent(seq: records.count + 1, kind: kind, at: Date(), pushRegId: device, externalUserId: user)))
    }

    mutating func register() async throws -> String {
        let body = #"{"pushServiceToken":"tok-\#(UUID().uuidString)","pushServiceType":"Firebase","os":"Android"}"#
        return try await send(.post, "/mobile/1/appinstance?ri=true", body: body)?["pushRegId"]?.stringValue ?? "?"
    }

    mutating func personalize(
        _ id: String, identity: String, force: Bool = false, primary: Bool = false
    ) async throws {
        try await send(
            .post,
            "/mobile/1/appinstance/\(id)/personalize?forceDepersonalize=\(force)&keepAsLead=false&setDeviceAsPrimary=\(primary)",
            device: id, body: #"{"userIdentity":\#(identity)}"#)
    }

    mutating func personalize(_ id: String, user: String, force: Bool = false, primary: Bool = false) async throws {
        try await personalize(id, identity: #"{"externalUserId":"\#(user)"}"#, force: force, primary: primary)
    }

    mutating func depersonalize(_ id: String) async throws {
        try await send(.post, "/mobile/1/appinstance/\(id)/depersonalize", device: id)
    }

    mutating func backendDepersonalize(_ id: String) async throws {
        try await send(.post, "/people/2/contactInformation/push/\(id)/depersonalize", backend: true)
    }

    mutating func getUser(_ id: String) async throws {
        try await send(.get, "/mobile/1/appinstance/\(id)/user?ri=true", device: id)
    }

    mutating func patchUser(_ id: String, _ body: String = #"{"firstName":"Ana"}"#) async throws {
        try await send(.patch, "/mobile/1/appinstance/\(id)/user", device: id, body: body)
    }

    mutating func session(_ id: String) async throws {
        try await send(
            .post, "/mobile/1/appinstance/\(id)/user/events/session", device: id,
            body: #"{"systemData":{"os":"Android"},"sessionStarts":["2026-01-05T10:00:00+01:00"]}"#)
    }

    mutating func push(_ user: String, primaryOnly: Bool) async throws {
        try await send(
            .post, "/push/2/message/single", backend: true,
            body:
                #"{"from":"\#(appCode)","to":{"externalUserId":"\#(user)"},"text":"Hi","targetOnlyPrimaryDevices":\#(primaryOnly)}"#
        )
    }

    func check(_ configuration: FlowCheckConfiguration = .reference) -> FlowChecker.Outcome {
        FlowChecker.check(records, configuration: configuration)
    }

    /// The rule ids of the violations, in order.
    func rules(_ configuration: FlowCheckConfiguration = .reference) -> [String] {
        check(configuration).violations.map(\.rule.id)
    }

    /// The same trace without its events.
    func withoutEvents() -> [TraceRecord] { exchanges.map(TraceRecord.exchange) }
}
