import ConformCore
import ConformTraffic
import Foundation

extension FlowChecker {
    /// A call the server could not take, which the app owes again (decision D20).
    struct Retry: Sendable {
        /// The exchange that failed.
        var seq: Int
        var endpoint: String
        /// What came instead of an answer: "no answer", "503", …
        var cause: String
        /// The user a personalize was for.
        var user: String?
        /// Whether a violation about it was reported already (one per failure).
        var reported = false

        var said: String { "\(endpoint) of exchange \(seq) (\(cause))" }
    }

    /// What the recovery rules keep about one installation.
    struct Recovery: Sendable {
        var owedDepersonalize: Retry?
        var owedPersonalize: Retry?
        /// The exchange whose answer was NO_REGISTRATION for this pushRegId, and whether a later call with it was
        /// reported.
        var forgottenAt: Int?
        var forgottenReported = false
        /// The message ids the device received or listed (bounded), and the depersonalize after which its next
        /// message sync is judged.
        var received: Set<String> = []
        var depersonalizedAt: Int?
    }

    /// Most message ids kept per installation: beyond that, older ones are not learned (the rule stays silent).
    static let maxReceivedPerDevice = 1_000

    /// Why the server did not take `exchange`, when it did not: no answer at all, 408, 429 or a 5xx. A refusal
    /// (another 4xx) is an answer the app must act on, not one to send again.
    static func notTaken(_ exchange: RecordedExchange) -> String? {
        if exchange.omitted.contains(where: { $0.hasPrefix("response: none") }) { return "no answer" }
        let code = exchange.response.status.code
        if code == 0 { return "no answer" }
        if code >= 500 || code == 408 || code == 429 { return "\(code)" }
        return nil
    }

    /// The recovery rules on one exchange, before the state takes what it changed.
    mutating func checkRecovery(_ call: Call, _ findings: inout Findings) {
        let id = call.endpoint.id
        let failed = Self.notTaken(call.exchange)
        let endpoint = call.endpoint
        if let own = call.own, endpoint.namesRegistration { checkForgotten(own, call, &findings) }
        if endpoint.isRegistration {
            checkSecondRegistration(call, &findings)
        } else if endpoint.isDepersonalize {
            guard let target = call.target else { return }
            if let failed {
                exercise(.depersonalizeRetry)
                if recovery[target]?.owedDepersonalize == nil {
                    recovery[target, default: Recovery()].owedDepersonalize = Retry(
                        seq: call.exchange.seq, endpoint: id, cause: failed, user: devices[target]?.externalUserId)
                }
            } else if call.succeeded {
                recovery[target]?.owedDepersonalize = nil
                if recovery[target]?.received.isEmpty == false {
                    recovery[target]?.depersonalizedAt = call.exchange.seq
                }
            }
        } else if endpoint.isPersonalize {
            guard let p = personalization(call) else { return }
            if var owed = recovery[p.device]?.owedDepersonalize, !owed.reported {
                findings.report(
                    .depersonalizeRetry,
                    "\(id) personalizes the device while the depersonalize \(owed.said) was never taken: the "
                        + "previous user\(owed.user.map { " '\($0)'" } ?? "") still owns it")
                owed.reported = true
                recovery[p.device]?.owedDepersonalize = owed
            }
            if let failed {
                exercise(.personalizeRetry)
                recovery[p.device, default: Recovery()].owedPersonalize = Retry(
                    seq: call.exchange.seq, endpoint: id, cause: failed, user: resolve(p))
            } else {
                // Answered (taken or refused): the personalize was sent again, whatever came of it.
                recovery[p.device]?.owedPersonalize = nil
            }
        } else if endpoint.readsUser || endpoint.updatesUser {
            guard let own = call.own, var state = recovery[own] else { return }
            let verb = endpoint.readsUser ? "reads" : "updates"
            if var owed = state.owedDepersonalize, !owed.reported {
                findings.report(
                    .depersonalizeRetry,
                    "\(id) \(verb) the user while the depersonalize \(owed.said) was never taken")
                owed.reported = true
                state.owedDepersonalize = owed
            }
            if var owed = state.owedPersonalize, !owed.reported {
                findings.report(
                    .personalizeRetry,
                    "\(id) \(verb) the user after the personalize\(owed.user.map { " to '\($0)'" } ?? "") "
                        + "\(owed.said) failed and was neither sent again nor reported")
                owed.reported = true
                state.owedPersonalize = owed
            }
            recovery[own] = state
        } else if endpoint.traits.contains(.messageSync) {
            if let own = call.own { checkSync(own, call, &findings) }
        }
    }

    /// `registration-recovery`: a NO_REGISTRATION answer, and any later call that still carries the pushRegId.
    private mutating func checkForgotten(_ own: String, _ call: Call, _ findings: inout Findings) {
        if let at = recovery[own]?.forgottenAt {
            guard recovery[own]?.forgottenReported == false else { return }
            findings.report(
                .registrationRecovery,
                "\(call.endpoint.id) still carries pushRegId '\(own)', which the server answered NO_REGISTRATION for "
                    + "in exchange \(at), without registering again")
            recovery[own]?.forgottenReported = true
            return
        }
        let error = call.responseBody?["requestError"]?["serviceException"]?["messageId"]?.stringValue
        if error == "NO_REGISTRATION", recovery[own] != nil || recovery.count < Self.memoryLimit {
            exercise(.registrationRecovery)
            recovery[own, default: Recovery()].forgottenAt = call.exchange.seq
        }
    }

    /// `update-keeps-registration`: after `appUpdated`, a registration with the push token of one the trace issued.
    private mutating func checkSecondRegistration(_ call: Call, _ findings: inout Findings) {
        let token = call.body?["pushServiceToken"]?.stringValue ?? ""
        if let update = lastUpdate, !token.isEmpty, let earlier = registrationsByToken[token],
            recovery[earlier.id]?.forgottenAt == nil, devices[earlier.id] != nil
        {
            findings.report(
                .updateKeepsRegistration,
                "\(call.endpoint.id) registers a second installation for the push token of '\(earlier.id)' "
                    + "(exchange \(earlier.seq)) after appUpdated (event \(update.seq)): pushes would reach the device "
                    + "twice")
        }
        guard call.succeeded, !token.isEmpty, let member = configuration.flows.answerMember,
            let id = call.responseBody?[member]?.stringValue
        else { return }
        lastUpdate = nil
        if registrationsByToken[token] != nil || registrationsByToken.count < Self.memoryLimit {
            registrationsByToken[token] = (id, call.exchange.seq)
        }
    }

    /// `update-keeps-registration` is judged by an update that follows a registration: the app had the SDK.
    mutating func updated(_ event: AppEvent) {
        guard !registrationsByToken.isEmpty else { return }
        exercise(.updateKeepsRegistration)
        lastUpdate = event
    }

    /// `personalize-retry`: the app reported the personalize that failed.
    mutating func personalizeReported(_ event: AppEvent) {
        guard let id = device(for: event) else {
            note(
                "event \(event.seq) (personalizeFailed) names no pushRegId and the trace has several devices (or none "
                    + "yet): not judged; send the device's pushRegId with each event")
            return
        }
        recovery[id]?.owedPersonalize = nil
    }

    /// `sync-keeps-delivered`: what a device's message sync lists and is handed.
    private mutating func checkSync(_ own: String, _ call: Call, _ findings: inout Findings) {
        let body = call.body
        let listed = Set(
            ((body?["mIDs"]?.arrayValue ?? []) + (body?["drIDs"]?.arrayValue ?? [])).compactMap(\.stringValue))
        let handed = (call.responseBody?["payloads"]?.arrayValue ?? []).compactMap { payload in
            (payload["messageId"] ?? payload["gcm.notification.messageId"])?.stringValue
        }
        var state = recovery[own] ?? Recovery()
        if let since = state.depersonalizedAt, call.succeeded {
            exercise(.syncKeepsDelivered)
            let again = handed.filter { state.received.contains($0) }
            if !again.isEmpty {
                findings.report(
                    .syncKeepsDelivered,
                    "\(call.endpoint.id) after the depersonalize of exchange \(since) was handed again "
                        + "\(again.count) message(s) the device had received "
                        + "(\(again.prefix(3).joined(separator: ", ")))")
            } else if listed.isDisjoint(with: state.received) {
                findings.report(
                    .syncKeepsDelivered,
                    "\(call.endpoint.id) after the depersonalize of exchange \(since) lists none of the "
                        + "\(state.received.count) message(s) the device had received: they may be delivered again")
            }
            state.depersonalizedAt = nil
        }
        if call.succeeded {
            for id in listed.union(handed) where state.received.count < Self.maxReceivedPerDevice {
                state.received.insert(id)
            }
        }
        if recovery[own] != nil || recovery.count < Self.memoryLimit { recovery[own] = state }
    }

    /// Recovery owed when the trace ended: a depersonalize or a personalize the server could not take and the app
    /// never sent again (nor, for a personalize, reported).
    func endOfTraceRecoveryViolations() -> [FlowViolation] {
        func owing(
            _ kind: FlowRule.Kind, _ owed: Retry?, flow: String, _ message: (Retry) -> String
        ) -> FlowViolation? {
            guard let owed, !owed.reported, let rule = rules[kind] else { return nil }
            return FlowViolation(
                rule: rule, seq: owed.seq, flow: flow, endpoint: owed.endpoint, step: rule.step,
                message: message(owed), help: rule.help)
        }
        var found: [FlowViolation] = []
        for (id, state) in recovery {
            let depersonalize = owing(.depersonalizeRetry, state.owedDepersonalize, flow: id) { owed in
                "the depersonalize \(owed.said) was never taken before the trace ended: the device still "
                    + "belongs to the user\(owed.user.map { " '\($0)'" } ?? ""), whose pushes keep reaching it"
            }
            let personalize = owing(.personalizeRetry, state.owedPersonalize, flow: id) { owed in
                "the personalize\(owed.user.map { " to '\($0)'" } ?? "") \(owed.said) was neither sent "
                    + "again nor reported before the trace ended: the identity never reached the platform"
            }
            found += [depersonalize, personalize].compactMap { $0 }
        }
        return found
    }
}
