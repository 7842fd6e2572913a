import ConformCore
import ConformTraffic
import Foundation

extension FlowChecker {
    /// What the trace showed about one installation.
    struct Device: Sendable {
        var applicationCode: String?
        /// The externalUserId of the device's person, when the trace showed it.
        var externalUserId: String?
        /// `true` personalized, `false` anonymous (registered or depersonalized in the trace), `nil` unknown.
        var personalized: Bool?
        /// The device's primary flag, when the trace showed it.
        var isPrimary: Bool?
        /// What an app event obliges the app to do next on this device.
        var obligation: Obligation?
    }

    /// A call the app owes after an app event.
    struct Obligation: Sendable {
        enum Action: Sendable { case depersonalize, personalize }
        var action: Action
        /// The kind of the rule the event's obligation is (``FlowChecker/rules`` words it).
        var rule: FlowRule.Kind
        var event: AppEvent
        /// The user to personalize to (personalize), or the user to forget (depersonalize, when known).
        var user: String?
        /// Whether the personalize must use forceDepersonalize=true.
        var force = false
        /// Whether a violation of this obligation was reported already (one report per obligation and kind).
        var reportedDataCall = false
    }

    /// The installations of a person as a listing showed them, kept up to date with later (de)personalizations.
    struct Person: Sendable {
        var devices: Set<String>
    }

    /// One exchange with the parts every rule reads.
    struct Call {
        let exchange: RecordedExchange
        let endpoint: FlowEndpoint
        let auth: Authorization
        /// The header that names the calling installation (`pushregistrationid`), when sent and not empty.
        let header: String?
        /// The device that makes the call: the header, else the path's pushRegId.
        let own: String?

        /// The call of `exchange` to `endpoint`, whose installation is named in the header `header` (the profile's
        /// ``ProtocolProfile/FlowKeys/requestHeader``), if the protocol has one.
        init(_ exchange: RecordedExchange, _ endpoint: FlowEndpoint, header name: String?) {
            self.exchange = exchange
            self.endpoint = endpoint
            auth = Authorization(exchange.request.headerFields["Authorization"])
            header = name.flatMap { exchange.request.headerFields[$0] }.flatMap { $0.isEmpty ? nil : $0 }
            own = header ?? endpoint.pathRegistrationId
        }

        var succeeded: Bool { exchange.response.status.isSuccess }
        /// The device the call acts on (the path's pushRegId).
        var target: String? { endpoint.pathRegistrationId }
        var body: JSONValue? { JSONValue.parsedBody(exchange.request.body) }
        var responseBody: JSONValue? { JSONValue.parsedBody(exchange.response.body) }
    }

    /// Updates the state with what a successful exchange changed.
    mutating func update(_ call: Call) {
        guard call.succeeded else { return }
        let target = call.target
        let endpoint = call.endpoint
        if endpoint.isRegistration {
            registered(call)
        } else if endpoint.traits.contains(.updateInstallation) {
            if let target, case .bool(let primary)? = call.body?["isPrimary"] {
                devices[target, default: Device()].isPrimary = primary
            }
        } else if endpoint.traits.contains(.readInstallation) {
            if let target, case .bool(let primary)? = call.responseBody?["isPrimary"] {
                devices[target, default: Device()].isPrimary = primary
            }
        } else if endpoint.isPersonalize {
            if let p = personalization(call) { personalized(p) }
        } else if endpoint.isDepersonalize {
            if let target { depersonalized(target) }
        } else if endpoint.readsUser {
            if let target, let user = call.responseBody?["externalUserId"]?.stringValue, !user.isEmpty {
                let instances = (call.responseBody?["instances"]?.arrayValue ?? []).compactMap { item in
                    item["pushRegId"]?.stringValue.map { ($0, item["isPrimary"]?.boolValue) }
                }
                listed(user: user, devices: instances, reader: target)
            }
        } else if endpoint.updatesUser {
            if let target { patchedUser(target, body: call.body) }
        } else if endpoint.traits.contains(.readPerson) {
            if let response = call.responseBody, let user = response["externalId"]?.stringValue, !user.isEmpty {
                let push = (response["contactInformation"]?["push"]?.arrayValue ?? []).compactMap { item in
                    item["registrationId"]?.stringValue.map { ($0, item["isPrimary"]?.boolValue) }
                }
                listed(user: user, devices: push, reader: nil)
            }
        } else if endpoint.traits.contains(.deleteInstallation) {
            if let target {
                leave(target)
                devices[target] = nil
            }
        }
    }

    private mutating func registered(_ call: Call) {
        guard let member = configuration.flows.answerMember, let response = call.responseBody,
            let id = response[member]?.stringValue
        else { return }
        let done = call.exchange.startedAt.addingTimeInterval(call.exchange.durationMs / 1000)
        issued[id] = min(issued[id] ?? .distantFuture, done)
        firstIssued = min(firstIssued ?? .distantFuture, done)
        var device = devices[id] ?? Device(personalized: false)
        if case .app(let code) = call.auth { device.applicationCode = code }
        if case .bool(let primary)? = response["isPrimary"] { device.isPrimary = primary }
        if let update = pendingUpdate {
            device.obligation = Obligation(
                action: .personalize, rule: .appUpdatePersonalize, event: update, user: update.externalUserId,
                force: true)
            pendingUpdate = nil
        }
        devices[id] = device
    }

    private mutating func personalized(_ p: Personalization) {
        let user = resolve(p)
        if devices[p.device]?.externalUserId != user { leave(p.device) }
        var device = devices[p.device] ?? Device()
        device.personalized = true
        device.externalUserId = user
        if p.primary { device.isPrimary = true }
        devices[p.device] = device
        if let user {
            learn(p.identity.identifiers, owner: user)
            persons[user]?.devices.insert(p.device)
        }
    }

    private mutating func depersonalized(_ id: String) {
        leave(id)
        devices[id, default: Device()].externalUserId = nil
        devices[id, default: Device()].personalized = false
    }

    private mutating func patchedUser(_ id: String, body: JSONValue?) {
        guard let body else { return }
        if let user = body["externalUserId"]?.stringValue, !user.isEmpty, devices[id]?.externalUserId != user {
            leave(id)
            devices[id, default: Device()].externalUserId = user
            devices[id, default: Device()].personalized = true
            persons[user]?.devices.insert(id)
        }
        if let owner = devices[id]?.externalUserId {
            learn(Identity(mobile: body).identifiers, owner: owner)
        }
    }

    /// A listing of a person's installations: the person's devices are now known, with their primary flags.
    private mutating func listed(user: String, devices listed: [(String, Bool?)], reader: String?) {
        guard persons[user] != nil || persons.count < Self.memoryLimit else { return }
        for (id, _) in listed where devices[id]?.externalUserId != user { leave(id) }
        persons[user] = Person(devices: Set(listed.map(\.0)))
        for (id, primary) in listed {
            var device = devices[id] ?? Device()
            device.externalUserId = user
            device.personalized = true
            if let primary { device.isPrimary = primary }
            devices[id] = device
        }
        if let reader, !listed.contains(where: { $0.0 == reader }) {
            // The reading device is the person's (its own user), even when the listing leaves it out.
            devices[reader, default: Device()].externalUserId = user
            devices[reader, default: Device()].personalized = true
        }
    }

    /// The device leaves its current person's listing.
    private mutating func leave(_ id: String) {
        if let owner = devices[id]?.externalUserId { persons[owner]?.devices.remove(id) }
    }

    private mutating func learn(_ identifiers: [String], owner: String) {
        for key in identifiers where owners[key] != nil || owners.count < Self.memoryLimit { owners[key] = owner }
    }
}
