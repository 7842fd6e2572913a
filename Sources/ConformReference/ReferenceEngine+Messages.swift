import ConformCore

extension ReferenceEngine {
    /// M14: `POST /mobile/5/messages?platformType=GCM|APNS` hands out the caller's pending pushes (D12, §11.1).
    ///
    /// `drIDs` are marked delivered and never sent again; ids in `mIDs` are left out of the answer; every
    /// other pending push is returned again on each sync until reported (§11.3 caveat 1, chosen reading).
    func messageSync(_ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError) -> HTTPResponse {
        let (app, _) = try mobileApplication(request, allowBearer: false, state: state)
        guard let caller = request.headerFields["pushregistrationid"], !caller.isEmpty else {
            throw .service(400, "NO_REGISTRATION", "Message sync needs the 'pushregistrationid' header.")
        }
        let installation = try installation(caller, app: app, state: &state, unknown: ReferenceError.noRegistration)
        let platform = (request.queryValue("platformType") ?? "").uppercased()
        guard platform == "GCM" || platform == "APNS" else {
            throw .requestFormat("Query parameter 'platformType' must be GCM or APNS.")
        }
        let body = try objectBody(request)
        let held = try idList(body["mIDs"], name: "mIDs")
        let delivered = try idList(body["drIDs"], name: "drIDs")
        if has(.deliveryReportedForAllDevices) { withdrawCopies(of: delivered, on: caller, app: app.id, state: &state) }
        var pending = installation.pending
        if !has(.syncResendsKnownMessages) { pending.removeAll { delivered.contains($0.messageId) } }
        state.installations[caller]?.pending = pending
        // Variant asyncDelivery: a push is handed out only once it has arrived.
        let arrived = has(.asyncDelivery) ? pending.filter { $0.visibleAt <= nowMillis } : pending
        let payloads = arrived.filter { has(.syncResendsKnownMessages) || !held.contains($0.messageId) }.map {
            platform == "APNS" ? Self.apnsPayload($0, explicitNulls: has(.explicitNulls)) : Self.gcmPayload($0)
        }
        return .json(200, ["payloads": .array(payloads)])
    }

    /// M15: `POST /mobile/1/messages/deliveryreport` with `{"dlrIds":[…]}` marks pushes delivered.
    func deliveryReport(_ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError) -> HTTPResponse {
        let (app, _) = try mobileApplication(request, allowBearer: false, state: state)
        let key = has(.deliveryReportWrongKey) ? "drIDs" : "dlrIds"
        let ids = try idList(try objectBody(request)[key], name: key)
        if has(.deliveryReportWrongKey) && ids.isEmpty { throw .requestFormat("'drIDs' must not be empty.") }
        guard !ids.isEmpty else { return .empty(200) }
        // The report is the calling device's: another device's copy of the push (the same messageId under the
        // sharedMessageId variant) is still to be delivered. Without the header, every device of the application.
        if let caller = request.headerFields["pushregistrationid"], state.installations[caller]?.applicationId == app.id
        {
            if has(.deliveryReportedForAllDevices) { withdrawCopies(of: ids, on: caller, app: app.id, state: &state) }
            state.installations[caller]?.pending.removeAll { ids.contains($0.messageId) }
        } else {
            for key in state.installations.keys where state.installations[key]?.applicationId == app.id {
                state.installations[key]?.pending.removeAll { ids.contains($0.messageId) }
            }
        }
        return .empty(200)
    }

    /// The `deliveryReportedForAllDevices` fault: the pushes `ids` names on `caller` are withdrawn from every device
    /// of the application (a copy is the same bulk with the same content).
    private func withdrawCopies(of ids: Set<String>, on caller: String, app: String, state: inout ReferenceState) {
        let pushes = (state.installations[caller]?.pending ?? []).filter { ids.contains($0.messageId) }.map {
            [$0.bulkId, $0.title ?? "", $0.text ?? ""]
        }
        guard !pushes.isEmpty else { return }
        for key in state.installations.keys where state.installations[key]?.applicationId == app {
            state.installations[key]?.pending.removeAll { pushes.contains([$0.bulkId, $0.title ?? "", $0.text ?? ""]) }
        }
    }

    /// M16: `POST /mobile/2/messages/seen` with `{"messages":[{"messageId","timestampDelta"}]}`.
    func seenReport(_ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError) -> HTTPResponse {
        let (app, _) = try mobileApplication(request, allowBearer: false, state: state)
        let body = try objectBody(request)
        guard let messages = body["messages"]?.arrayValue else { throw .requestFormat("'messages' must be an array.") }
        for (index, message) in messages.enumerated() {
            guard let id = message["messageId"]?.stringValue else {
                throw .requestFormat("messages[\(index)].messageId must be a string.")
            }
            if has(.seenAfterDeliveryRefused) && !isPending(id, app: app, state: state) {
                throw .requestFormat("messages[\(index)].messageId '\(id)' is not a pending message.")
            }
        }
        return .empty(200)
    }

    /// Whether a push with `messageId` still waits on an installation of `app` (for the `seenAfterDeliveryRefused` fault).
    private func isPending(_ messageId: String, app: ReferenceConfiguration.Application, state: ReferenceState) -> Bool
    {
        state.installations.values.contains { installation in
            installation.applicationId == app.id && installation.pending.contains { $0.messageId == messageId }
        }
    }

    private func idList(_ value: JSONValue?, name: String) throws(ReferenceError) -> Set<String> {
        guard let value, !value.isNull else { return [] }
        guard let array = value.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
            throw .requestFormat("'\(name)' must be an array of strings.")
        }
        return Set(array.compactMap(\.stringValue))
    }

    /// An APNs-like payload (§11.1); with `explicitNulls` a missing title and custom payload are `null`.
    ///
    /// GCM payloads never get explicit nulls: an FCM data map carries only strings.
    static func apnsPayload(_ m: QueuedMessage, explicitNulls: Bool = false) -> JSONValue {
        var alert = JSONObject()
        if let title = m.title {
            alert["title"] = .string(title)
        } else if explicitNulls {
            alert["title"] = .null
        }
        alert["body"] = .string(m.text ?? "")
        var internalData = JSONObject([("sendDateTime", .int(m.sendDateTime)), ("bulkId", .string(m.bulkId))])
        var o = JSONObject([("messageId", .string(m.messageId))])
        if m.silent {
            internalData["silent"] = .object(alert.merging(JSONObject([("sound", .string(m.sound ?? "default"))])))
            o["aps"] = ["content-available": 1]
        } else {
            o["aps"] = ["alert": .object(alert), "sound": .string(m.sound ?? "default"), "badge": 0]
        }
        o["internalData"] = .object(internalData)
        if let custom = m.customPayload {
            o["customPayload"] = .object(custom)
        } else if explicitNulls {
            o["customPayload"] = .null
        }
        return .object(o)
    }

    /// A flat GCM payload with string values (§11.1).
    static func gcmPayload(_ m: QueuedMessage) -> JSONValue {
        var o = JSONObject([("gcm.notification.messageId", .string(m.messageId))])
        if let title = m.title { o["gcm.notification.title"] = .string(title) }
        o["gcm.notification.body"] = .string(m.text ?? "")
        o["gcm.notification.sound"] = .string(m.sound ?? "default")
        o["gcm.notification.vibrate"] = "true"
        o["gcm.notification.silent"] = .string(m.silent ? "true" : "false")
        if let custom = m.customPayload { o["customPayload"] = .string(JSONValue.object(custom).serialized()) }
        let internalData: JSONValue = ["sendDateTime": .int(m.sendDateTime), "bulkId": .string(m.bulkId)]
        o["internalData"] = .string(internalData.serialized())
        return .object(o)
    }
}

extension JSONObject {
    /// A copy with `other`'s members added or replaced.
    func merging(_ other: JSONObject) -> JSONObject {
        var copy = self
        for (k, v) in other { copy[k] = v }
        return copy
    }
}
