import ConformCore

/// Push statuses of the Infobip catalogue (§11.5, §11.6).
enum PushStatus {
    static func json(_ groupId: Int, _ groupName: String, _ id: Int, _ name: String, _ description: String) -> JSONValue
    {
        [
            "groupId": .int(groupId), "groupName": .string(groupName), "id": .int(id), "name": .string(name),
            "description": .string(description),
        ]
    }
    static let pendingAccepted = json(
        1, "PENDING", 26, "PENDING_ACCEPTED", "Message accepted and pending for processing.")
    static let pendingEnroute = json(1, "PENDING", 7, "PENDING_ENROUTE", "Message sent to next instance.")
    static let noDestination = json(
        2, "UNDELIVERABLE", 66, "UNDELIVERABLE_NO_DESTINATION", "The filter does not resolve any pushRegistrationIds.")
    static let noApplication = json(5, "REJECTED", 65, "REJECTED_NO_APPLICATION", "Unknown application in 'from'.")
    static let noContent = json(5, "REJECTED", 69, "REJECTED_NO_CONTENT", "The message has no content.")
    static let invalidQuery = json(5, "REJECTED", 71, "REJECTED_INVALID_QUERY", "The 'to' filter cannot be parsed.")
}

/// A push filter that cannot be parsed.
struct InvalidPushQuery: Error {
    var message: String
}

extension ReferenceEngine {
    /// B6: `POST /push/2/message/single`; one bulk whose `messageCount` is the number of devices reached.
    func pushSingle(_ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError) -> HTTPResponse {
        let app = try backendApplication(request, requireAppCode: false)
        let body = try objectBody(request, invalid: { .service(400, "BAD_REQUEST", $0) })
        let sent = try sendV2(body, app: app, deliver: true, state: &state)
        return .json(pushStatus(reachedAnyDevice: !sent.noDestination), ["bulks": [sent.bulk]])
    }

    /// B7: `POST /push/2/message/multi` with `{"messages":[…]}`; one bulk per message.
    func pushMulti(_ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError) -> HTTPResponse {
        let app = try backendApplication(request, requireAppCode: false)
        let body = try objectBody(request, invalid: { .service(400, "BAD_REQUEST", $0) })
        guard let messages = body["messages"]?.arrayValue, !messages.isEmpty else {
            throw .service(400, "BAD_REQUEST", "'messages' must be a non-empty array.")
        }
        var bulks: [JSONValue] = []
        var noDestination = true
        for (index, message) in messages.enumerated() {
            guard let object = message.objectValue else {
                throw .service(400, "BAD_REQUEST", "messages[\(index)] must be an object.")
            }
            let sent = try sendV2(
                object, app: app, deliver: index == 0 || !has(.pushMultiSendsOnlyFirst), state: &state)
            bulks.append(sent.bulk)
            noDestination = noDestination && sent.noDestination
        }
        return .json(pushStatus(reachedAnyDevice: !noDestination), ["bulks": .array(bulks)])
    }

    /// Sends one v2 message; `noDestination` tells that it was accepted and reached no device (D7, D17).
    ///
    /// Without `deliver` (the `pushMultiSendsOnlyFirst` fault) the message is answered as sent but queued nowhere.
    private func sendV2(
        _ message: JSONObject, app: ReferenceConfiguration.Application, deliver: Bool, state: inout ReferenceState
    ) throws(ReferenceError) -> (bulk: JSONValue, noDestination: Bool) {
        guard let to = message["to"], let filter = to.objectValue else {
            throw .service(400, "BAD_REQUEST", "'to' is required and must be an object.")
        }
        let onlyPrimary = try flag(message["targetOnlyPrimaryDevices"]) { .service(400, "BAD_REQUEST", $0) }
        let bulkId = state.ids.next("bulk")
        func bulk(_ status: JSONValue, _ count: Int) -> JSONValue {
            ["to": to, "status": status, "messageCount": .int(count), "bulkId": .string(bulkId)]
        }
        let from = message["from"]?.stringValue ?? ""
        guard from == app.applicationCode || from == app.id else {
            return (bulk(PushStatus.noApplication, 0), false)
        }
        let options = message["notificationOptions"]
        let content = QueuedMessage(
            messageId: "", title: message["title"]?.stringValue ?? options?["title"]?.stringValue,
            text: message["text"]?.stringValue, sound: message["sound"]?.stringValue ?? options?["sound"]?.stringValue,
            silent: message["silent"]?.boolValue ?? false, customPayload: message["customPayload"]?.objectValue,
            sendDateTime: nowMillis, bulkId: bulkId)
        guard content.text != nil || content.title != nil || content.customPayload != nil else {
            return (bulk(PushStatus.noContent, 0), false)
        }
        let devices: [String]
        do {
            devices = try resolve(filter, app: app, onlyPrimary: onlyPrimary, state: state)
        } catch {
            return (bulk(PushStatus.invalidQuery, 0), false)
        }
        if onlyPrimary && devices.isEmpty && has(.primaryOnlyWithoutPrimaryRefused) {
            throw .service(400, "BAD_REQUEST", "No device of the destination is primary.")
        }
        if deliver { _ = enqueue(content, to: devices, byRegistration: to["pushRegistrationId"] != nil, state: &state) }
        let status = devices.isEmpty ? noDestinationStatusV2 : reachedStatusV2
        return (bulk(status, devices.count), devices.isEmpty)
    }

    /// B8: `POST /push/3/messages`; one `messages[]` entry per device reached, or one UNDELIVERABLE entry per empty destination.
    func pushV3(_ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError) -> HTTPResponse {
        do {
            return try sendV3(request, state: &state)
        } catch  where has(.v3ErrorsInStandardEnvelope) && error.body["errorCode"]?.stringValue == "E400" {
            let why = error.body["violations"]?[0]?["violation"]?.stringValue ?? "Bad request"
            throw .service(400, "BAD_REQUEST", why)
        }
    }

    private func sendV3(_ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError) -> HTTPResponse {
        let app = try backendApplication(request, requireAppCode: false)
        let body = try objectBody(
            request, invalid: { .e400("Request body is not a JSON object.", violations: [("", $0)]) })
        guard let messages = body["messages"]?.arrayValue, !messages.isEmpty else {
            throw .e400("Bad request", violations: [("messages", "must not be empty")])
        }
        // Validate everything first, so a rejected request sends nothing.
        var plans: [(content: QueuedMessage, targets: [(label: String, filter: JSONObject, onlyPrimary: Bool)])] = []
        var violations: [(property: String, violation: String)] = []
        for (i, message) in messages.enumerated() {
            let sender = message["sender"]?.stringValue ?? ""
            if sender.isEmpty {
                violations.append(("messages[\(i)].sender", "must not be blank"))
            } else if sender != app.applicationCode && sender != app.id {
                violations.append(("messages[\(i)].sender", "application not found"))
            }
            let content = message["content"]
            if content?["text"]?.stringValue == nil && content?["title"]?.stringValue == nil {
                violations.append(("messages[\(i)].content", "must have text or title"))
            }
            guard let destinations = message["destinations"]?.arrayValue, !destinations.isEmpty else {
                violations.append(("messages[\(i)].destinations", "must not be empty"))
                continue
            }
            var targets: [(label: String, filter: JSONObject, onlyPrimary: Bool)] = []
            for (j, destination) in destinations.enumerated() {
                let property = "messages[\(i)].destinations[\(j)]"
                switch v3Target(destination) {
                case .success(let target): targets.append(target)
                case .failure(let failure): violations.append((property, failure.message))
                }
            }
            let queued = QueuedMessage(
                messageId: "", title: content?["title"]?.stringValue, text: content?["text"]?.stringValue,
                sound: message["options"]?["platform"]?["sound"]?.stringValue, silent: false,
                customPayload: message["options"]?["customPayload"]?.objectValue
                    ?? content?["customPayload"]?.objectValue,
                sendDateTime: nowMillis, bulkId: "")
            plans.append((queued, targets))
        }
        if !violations.isEmpty { throw .e400("Bad request", violations: violations) }
        let bulkId = state.ids.next("bulk")
        var entries: [JSONValue] = []
        var reachedAnyDevice = false
        for plan in plans {
            var content = plan.content
            content.bulkId = bulkId
            for target in plan.targets {
                let devices: [String]
                do {
                    devices = try resolve(target.filter, app: app, onlyPrimary: target.onlyPrimary, state: state)
                } catch {
                    throw .e400("Bad request", violations: [("destinations", error.message)])
                }
                if devices.isEmpty && target.onlyPrimary && has(.primaryOnlyWithoutPrimaryRefused) {
                    throw .e400(
                        "Bad request", violations: [("destinations", "no device of the destination is primary")])
                }
                if devices.isEmpty {
                    entries.append(v3Entry(state.ids.next("message"), noDestinationStatusV3, target.label))
                }
                reachedAnyDevice = reachedAnyDevice || !devices.isEmpty
                for (device, messageId) in zip(
                    devices,
                    enqueue(
                        content, to: devices, byRegistration: target.filter["pushRegistrationId"] != nil, state: &state)
                ) {
                    entries.append(v3Entry(messageId, reachedStatusV3, device))
                }
            }
        }
        return .json(
            pushStatus(reachedAnyDevice: reachedAnyDevice), ["bulkId": .string(bulkId), "messages": .array(entries)])
    }

    private func v3Entry(_ messageId: String, _ status: JSONValue, _ destination: String) -> JSONValue {
        var status = status
        // The v3 status may carry `action` (§11.6); the reference leaves it out.
        if has(.explicitNulls), case .object(var object) = status {
            object["action"] = .null
            status = .object(object)
        }
        return ["messageId": .string(messageId), "status": status, "destination": .string(destination), "details": [:]]
    }

    /// A v3 destination as a v2-style filter plus its primary-only flag.
    private func v3Target(_ destination: JSONValue) -> Result<
        (label: String, filter: JSONObject, onlyPrimary: Bool), InvalidPushQuery
    > {
        guard let object = destination.objectValue else {
            return .failure(InvalidPushQuery(message: "must be an object"))
        }
        let onlyPrimary = !has(.v3TargetOnlyPrimaryIgnored) && object["targetOnlyPrimaryDevices"]?.boolValue == true
        let keyed: [String: String] = [
            "EXTERNAL_USER_ID": "externalUserId", "EMAIL": "email", "PHONE_NUMBER": "phoneNumber",
            "REGISTRATION": "pushRegistrationId",
        ]
        let type = object["type"]?.stringValue ?? ""
        if let key = keyed[type] {
            guard let value = object[key]?.stringValue, !value.isEmpty else {
                return .failure(InvalidPushQuery(message: "'\(key)' must not be blank for type \(type)"))
            }
            return .success((value, JSONObject([(key, .string(value))]), onlyPrimary))
        }
        guard type == "MULTIPLE" else {
            return .failure(
                InvalidPushQuery(
                    message: "type must be EXTERNAL_USER_ID, EMAIL, PHONE_NUMBER, REGISTRATION or MULTIPLE"))
        }
        var filter = object
        filter["type"] = nil
        filter["targetOnlyPrimaryDevices"] = nil
        return .success((destination.serialized(), filter, onlyPrimary))
    }

    /// A boolean body member; absent or null is false.
    private func flag(_ value: JSONValue?, invalid: (String) -> ReferenceError) throws(ReferenceError) -> Bool {
        guard let value, !value.isNull else { return false }
        guard let b = value.boolValue else { throw invalid("'targetOnlyPrimaryDevices' must be a boolean.") }
        return b
    }

    /// How many unreported pushes one installation keeps.
    static let maxPendingPerInstallation = 500

    /// The v2 bulk status of a push that reaches devices (variant `otherPushStatuses`: another pending one).
    private var reachedStatusV2: JSONValue {
        has(.otherPushStatuses) ? PushStatus.pendingEnroute : PushStatus.pendingAccepted
    }

    /// The v3 entry status of a device a push reaches.
    private var reachedStatusV3: JSONValue {
        has(.otherPushStatuses) ? PushStatus.pendingAccepted : PushStatus.pendingEnroute
    }

    /// Queues one copy of `content` per device, each with its own messageId (variant `sharedMessageId`: one
    /// messageId for every copy); returns the ids.
    ///
    /// A push sent to a person (not `byRegistration`) remembers the person, so a device that changes person
    /// leaves it behind.
    private func enqueue(
        _ content: QueuedMessage, to devices: [String], byRegistration: Bool, state: inout ReferenceState
    ) -> [String] {
        let shared = has(.sharedMessageId) && !devices.isEmpty ? state.ids.next("message") : nil
        return devices.map { device in
            var copy = content
            copy.messageId = shared ?? state.ids.next("message")
            copy.forPerson = byRegistration ? nil : state.installations[device]?.personId
            if has(.asyncDelivery), let last = state.installations[device]?.lastVisibleAt {
                // Never before an earlier push to the same device.
                let delay = Int.random(in: ReferenceVariant.deliveryDelayMilliseconds, using: &state.random)
                copy.visibleAt = max(nowMillis + delay, last)
                state.installations[device]?.lastVisibleAt = copy.visibleAt
            }
            state.installations[device]?.pending.append(copy)
            // Bound memory under load: a device that never syncs keeps only its newest pushes.
            if let count = state.installations[device]?.pending.count, count > Self.maxPendingPerInstallation {
                state.installations[device]?.pending.removeFirst(count - Self.maxPendingPerInstallation)
            }
            return copy.messageId
        }
    }
}
