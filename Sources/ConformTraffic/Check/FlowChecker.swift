import ConformCore
import Foundation

/// Checks a client's traffic against the flow's rules, one exchange at a time, keeping only per-device state.
public struct FlowChecker: Sendable {
    public let configuration: FlowCheckConfiguration

    private struct Device: Sendable {
        var applicationCode: String?
        var externalUserId: String?
    }

    private var issued: Set<String>
    private var devices: [String: Device] = [:]
    private var applicationCodes: Set<String>
    private var anyRegistration = false

    public init(configuration: FlowCheckConfiguration = .reference) {
        self.configuration = configuration
        self.issued = configuration.registeredBefore
        self.applicationCodes = configuration.applicationCodes
        self.anyRegistration = !configuration.registeredBefore.isEmpty
    }

    /// Checks every exchange of a sequence (e.g. a HAR import) and returns the violations in order.
    public static func check(
        _ exchanges: some Sequence<RecordedExchange>, configuration: FlowCheckConfiguration = .reference
    ) -> [FlowViolation] {
        var checker = FlowChecker(configuration: configuration)
        return exchanges.flatMap { checker.check($0) }
    }

    /// Streams a recording through the checker without loading it.
    public static func check(
        recording: RecordingSequence, configuration: FlowCheckConfiguration = .reference,
        onViolation: (FlowViolation) -> Void = { _ in }
    ) async throws -> [FlowViolation] {
        var checker = FlowChecker(configuration: configuration)
        var all: [FlowViolation] = []
        for try await exchange in recording {
            for violation in checker.check(exchange) {
                onViolation(violation)
                all.append(violation)
            }
        }
        return all
    }

    /// Checks one exchange against the state built from the earlier ones, then updates that state.
    public mutating func check(_ exchange: RecordedExchange) -> [FlowViolation] {
        let request = exchange.request
        guard let endpoint = FlowEndpoint.classify(request) else { return [] }
        var found: [FlowViolation] = []
        func report(_ rule: FlowRule, _ message: String, step: Int? = nil) {
            guard !configuration.disabledRules.contains(rule.id) else { return }
            found.append(
                FlowViolation(
                    rule: rule, seq: exchange.seq, flow: exchange.flow, endpoint: endpoint.id,
                    step: step ?? endpoint.step, message: message, help: rule.help))
        }
        let auth = Authorization(request.headerFields["Authorization"])
        let header = request.headerFields["pushregistrationid"].flatMap { $0.isEmpty ? nil : $0 }
        let own = header ?? endpoint.pathRegistrationId

        if endpoint.isMobile {
            // Only a code the server accepted is an application code; a refused one may be a misplaced API key.
            if case .app(let code) = auth, exchange.response.status.isSuccess { applicationCodes.insert(code) }
            if let own, case .app(let code) = auth { devices[own, default: Device()].applicationCode = code }

            if endpoint.isUserCall {
                if let id = own {
                    if !issued.contains(id) {
                        report(
                            .registrationFirst,
                            "\(endpoint.id) for pushRegId '\(id)' before any registration issued it", step: 1)
                    }
                } else if !anyRegistration {
                    report(.registrationFirst, "\(endpoint.id) sent before any registration", step: 1)
                }
            }
            if endpoint.id != "M1", endpoint.id != "M12", header == nil,
                endpoint.pathRegistrationId.map(issued.contains) ?? anyRegistration
            {
                report(.registrationHeader, "\(endpoint.id) after registration without the pushregistrationid header")
            }
            let applicationCode = own.flatMap { devices[$0]?.applicationCode } ?? auth.applicationCode
            if endpoint.sendsPersonalData, let code = applicationCode,
                configuration.restrictedApplicationCodes.contains(code)
            {
                report(.restrictedPersonalData, "\(endpoint.id) sent by the app of restricted application '\(code)'")
            }
            if endpoint.id == "M4" || endpoint.id == "M5" {
                checkIdentity(request.body, key: "userIdentity", report: { report(.personalizeIdentity, $0) })
            }
            if endpoint.needsJWT, let code = applicationCode, configuration.jwtApplicationCodes.contains(code) {
                checkJWT(endpoint, auth: auth, request: request, device: own, code: code) { report(.jwtSubject, $0) }
            }
        } else if endpoint.isBackend {
            switch auth {
            case .missing:
                report(.backendCredentials, "\(endpoint.id) without an Authorization header")
            case .app(let key) where applicationCodes.contains(key):
                report(
                    .backendCredentials,
                    "\(endpoint.id) authorized with the application code '\(key)' instead of an API key")
            default:
                break
            }
            if endpoint.id == "B3" {
                checkIdentity(request.body, key: "identity", report: { report(.personalizeIdentity, $0) })
            }
        }

        if endpoint.id == "M4" || endpoint.id == "B3", let target = endpoint.pathRegistrationId {
            let identity = Self.externalUserId(request.body, backend: endpoint.id == "B3")
            let current = devices[target]?.externalUserId
            if let identity, let current, identity != current, !queryFlag(request, "forceDepersonalize") {
                report(
                    .userSwitch,
                    "personalize to '\(identity)' on a device personalized to '\(current)' without forceDepersonalize=true and no depersonalize in between"
                )
            }
        }
        update(endpoint, exchange: exchange)
        return found
    }

    private mutating func update(_ endpoint: FlowEndpoint, exchange: RecordedExchange) {
        guard exchange.response.status.isSuccess else { return }
        switch endpoint.id {
        case "M1":
            if let id = try? JSONValue.parse(exchange.response.body)["pushRegId"]?.stringValue {
                issued.insert(id)
                anyRegistration = true
                if case .app(let code) = Authorization(exchange.request.headerFields["Authorization"]) {
                    devices[id, default: Device()].applicationCode = code
                }
            }
        case "M4", "B3":
            if let target = endpoint.pathRegistrationId,
                let identity = Self.externalUserId(exchange.request.body, backend: endpoint.id == "B3")
            {
                devices[target, default: Device()].externalUserId = identity
            }
        case "M6", "B4":
            if let target = endpoint.pathRegistrationId { devices[target]?.externalUserId = nil }
        case "M11":
            if let target = endpoint.pathRegistrationId { devices[target] = nil }
        default:
            break
        }
    }

    private static func externalUserId(_ body: Data, backend: Bool) -> String? {
        guard let json = try? JSONValue.parse(body) else { return nil }
        let value = backend ? json["identity"]?["externalId"] : json["userIdentity"]?["externalUserId"]
        guard let id = value?.stringValue, !id.isEmpty, !(backend && id.lowercased() == "null") else { return nil }
        return id
    }

    private func checkIdentity(_ body: Data, key: String, report: (String) -> Void) {
        guard let json = try? JSONValue.parse(body) else {
            report("personalize without a JSON body")
            return
        }
        guard let identity = json[key], case .object(let object) = identity else {
            report("personalize without `\(key)`")
            return
        }
        let nonEmpty = object.contains { _, value in
            switch value {
            case .string(let s): !s.isEmpty && s.lowercased() != "null"
            case .array(let items): !items.isEmpty
            default: false
            }
        }
        if !nonEmpty { report("personalize with an empty `\(key)`") }
    }

    private func checkJWT(
        _ endpoint: FlowEndpoint, auth: Authorization, request: HTTPRequest, device: String?, code: String,
        report: (String) -> Void
    ) {
        guard case .bearer(let token) = auth else {
            report("\(endpoint.id) of JWT application '\(code)' without `Authorization: Bearer <JWT>`")
            return
        }
        guard let claims = JWTClaims(token: token) else {
            report("\(endpoint.id) carries a Bearer value that is not a decodable JWT")
            return
        }
        if let verify = configuration.verifyJWTSignature, !verify(token, code) {
            report("\(endpoint.id) carries a JWT whose signature does not verify with the key of '\(code)'")
        }
        let expected: String?
        if endpoint.id == "M4" || endpoint.id == "M5" {
            expected = Self.externalUserId(request.body, backend: false)
        } else {
            expected =
                (try? JSONValue.parse(request.body))?["externalUserId"]?.stringValue
                ?? device.flatMap { devices[$0]?.externalUserId }
        }
        guard let subject = claims.subject else {
            report("\(endpoint.id) carries a JWT without a `sub` claim")
            return
        }
        if let expected, subject != expected {
            report("\(endpoint.id) carries a JWT for sub '\(subject)' but the externalUserId is '\(expected)'")
        }
    }
}
