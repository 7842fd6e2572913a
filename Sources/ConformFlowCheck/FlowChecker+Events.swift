import ConformCore
import ConformTraffic
import Foundation

extension FlowChecker {
    /// Checks one app event: it can prove an earlier obligation broken (a login before the depersonalize a logout
    /// asked for) and opens the obligation it implies. Without events these rules never fire.
    public mutating func check(_ event: AppEvent) -> [FlowViolation] {
        eventCount += 1
        var event = event
        if event.seq <= 0 { event.seq = eventCount }
        currentSeq = event.seq
        if event.kind == .personalizeFailed {
            personalizeReported(event)
            return []
        }
        if event.kind == .appUpdated { updated(event) }
        if event.kind == .appUpdated, event.pushRegId == nil {
            // The update's new registration is the next one; without a user there is no live session to keep.
            pendingUpdate = event.externalUserId == nil ? nil : event
            return []
        }
        guard let id = device(for: event) else {
            note(
                "event \(event.seq) (\(event.kind)) names no pushRegId and the trace has several devices (or none yet): not judged; send the device's pushRegId with each event"
            )
            return []
        }
        var found: [FlowViolation] = []
        var device = devices[id] ?? Device()
        let open = device.obligation
        switch event.kind {
        case .login:
            let user = event.externalUserId ?? ""
            if let open, open.action == .depersonalize {
                found += violation(
                    open.rule, event, device: id,
                    "login of '\(user)' before the device was depersonalized after \(open.event.kind) (event \(open.event.seq))"
                )
            }
            if device.personalized == true && device.externalUserId == user {
                // Already the user's: nothing is owed, and the rule judged that.
                exercise(.loginPersonalize)
                device.obligation = nil
            } else {
                device.obligation = Obligation(action: .personalize, rule: .loginPersonalize, event: event, user: user)
            }
        case .logout, .sessionExpired:
            if open?.action == .depersonalize { break }
            let rule: FlowRule.Kind = event.kind == .logout ? .logoutDepersonalize : .sessionExpiryDepersonalize
            if device.personalized == false {
                // Anonymous already: nothing is owed, and the rule judged that.
                exercise(rule)
                device.obligation = nil
            } else {
                device.obligation = Obligation(
                    action: .depersonalize, rule: rule, event: event, user: device.externalUserId)
            }
        default:
            // appUpdated on a device that already registered after the update.
            if let user = event.externalUserId {
                if device.personalized == true && device.externalUserId == user {
                    exercise(.appUpdatePersonalize)
                } else {
                    device.obligation = Obligation(
                        action: .personalize, rule: .appUpdatePersonalize, event: event, user: user, force: true)
                }
            }
        }
        devices[id] = device
        return found
    }

    /// The device an event is about: the one it names, else the trace's only device.
    func device(for event: AppEvent) -> String? {
        if let id = event.pushRegId { return id }
        var known = Set(issued.keys)
        for (id, device) in devices where device.applicationCode != nil { known.insert(id) }
        return known.count == 1 ? known.first : nil
    }

    private func violation(
        _ kind: FlowRule.Kind, _ event: AppEvent, device: String, _ message: String
    ) -> [FlowViolation] {
        guard let rule = rules[kind] else { return [] }
        return [
            FlowViolation(
                rule: rule, seq: event.seq, flow: device, endpoint: "event:\(event.kind)", step: rule.step,
                message: message, help: rule.help)
        ]
    }

    mutating func note(_ text: String) {
        if notes.count < 100 { notes.append(text) }
    }

    /// Judges an exchange against the obligation of its device; returns true when it judged a personalize that an
    /// event asked for (then `user-switch` stays silent on it, the event's rule having said it).
    mutating func checkObligations(_ call: Call, _ findings: inout Findings) -> Bool {
        let id = call.endpoint.id
        if call.endpoint.isDepersonalize {
            if let target = call.target, call.succeeded, let open = devices[target]?.obligation,
                open.action == .depersonalize
            {
                exercise(open.rule)
                devices[target]?.obligation = nil
            }
            return false
        }
        if let p = personalization(call), var device = devices[p.device], var open = device.obligation {
            let since = "\(open.event.kind) (event \(open.event.seq))"
            switch open.action {
            case .depersonalize:
                // A depersonalize sent and not taken is `depersonalize-retry`'s to say, not a missing one.
                if !open.reportedDataCall, recovery[p.device]?.owedDepersonalize == nil {
                    findings.report(
                        open.rule, "\(p.endpoint) personalizes the device after \(since) before any depersonalize")
                    open.reportedDataCall = true
                    devices[p.device]?.obligation = open
                }
                return false
            case .personalize:
                if open.rule == .appUpdatePersonalize, !p.canForce { return false }
                let wanted = open.user ?? ""
                let before = findings.found.count
                if let next = resolve(p), next != wanted {
                    findings.report(open.rule, "\(p.endpoint) personalizes to '\(next)' after \(since) of '\(wanted)'")
                } else if !p.force, open.force {
                    findings.report(
                        open.rule, "\(p.endpoint) after \(since) of '\(wanted)' without forceDepersonalize=true")
                } else if !p.force, device.personalized == true, let current = device.externalUserId, current != wanted
                {
                    findings.report(
                        open.rule,
                        "\(p.endpoint) to '\(wanted)' after \(since) on a device personalized to '\(current)' without forceDepersonalize=true"
                    )
                }
                let reported = findings.found.count > before
                if call.succeeded || reported {
                    exercise(open.rule)
                    device.obligation = nil
                    devices[p.device] = device
                }
                return reported
            }
        }
        let endpoint = call.endpoint
        guard endpoint.readsUser || endpoint.updatesUser, let own = call.own, let device = devices[own],
            var open = device.obligation, !open.reportedDataCall,
            open.action != .depersonalize || recovery[own]?.owedDepersonalize == nil
        else { return false }
        let since = "\(open.event.kind) (event \(open.event.seq))"
        let verb = endpoint.readsUser ? "reads" : "updates"
        switch open.action {
        case .depersonalize:
            findings.report(
                open.rule,
                "\(id) \(verb) the user\(open.user.map { " '\($0)'" } ?? "") after \(since) before the device was depersonalized"
            )
        case .personalize:
            guard device.personalized == true, let current = device.externalUserId, current != open.user else {
                return false
            }
            findings.report(
                open.rule,
                "\(id) \(verb) the previous user '\(current)' after \(since) of '\(open.user ?? "")', before the device was personalized to the new user"
            )
        }
        open.reportedDataCall = true
        devices[own]?.obligation = open
        return false
    }

    /// A logout or a session expiry whose depersonalize the trace ended without: a violation of its rule, at the
    /// event. The previous user's device stays theirs, and their pushes keep reaching it, however long the app
    /// waits (an obligation whose device already broke it with a user-data call was reported then).
    public func endOfTraceViolations() -> [FlowViolation] {
        var found: [FlowViolation] = []
        for (id, device) in devices {
            guard let open = device.obligation, open.action == .depersonalize, !open.reportedDataCall,
                let rule = rules[open.rule]
            else { continue }
            // The app did send the depersonalize and the server could not take it: `depersonalize-retry` says so.
            if recovery[id]?.owedDepersonalize != nil { continue }
            let user = open.user.map { " '\($0)'" } ?? ""
            found.append(
                FlowViolation(
                    rule: rule, seq: open.event.seq, flow: id, endpoint: "event:\(open.event.kind)", step: rule.step,
                    message:
                        "\(open.event.kind) (event \(open.event.seq)) and no depersonalize before the trace ended: "
                        + "the device still belongs to the user\(user), whose pushes keep reaching it",
                    help: rule.help))
        }
        found += endOfTraceRecoveryViolations()
        return found.sorted { ($0.seq, $0.flow) < ($1.seq, $1.flow) }
    }

    /// What events asked for and the trace has not shown yet, other than a depersonalize (a violation at the end,
    /// ``endOfTraceViolations()``): not violations, the call may still be on its way.
    public func openObligations() -> [String] {
        var lines: [(Int, String)] = []
        for (id, device) in devices {
            guard let open = device.obligation, open.action != .depersonalize else { continue }
            let what = "no personalize to '\(open.user ?? "")'\(open.force ? " with force" : "")"
            lines.append(
                (
                    open.event.seq,
                    "after \(open.event.kind) (event \(open.event.seq)) on device \(id): \(what) before the trace ended"
                ))
        }
        if let update = pendingUpdate {
            lines.append((update.seq, "after appUpdated (event \(update.seq)): no registration before the trace ended"))
        }
        return lines.sorted { $0.0 < $1.0 }.prefix(100).map(\.1)
    }
}

/// Places the events of an events file among a trace's exchanges by time: an event goes before the first exchange
/// (in trace order) that started at or after it.
struct AppEventMerger {
    private var events: [AppEvent]
    private var next = 0

    init(_ events: [AppEvent]) {
        self.events = events.enumerated().sorted { a, b in
            a.element.at != b.element.at ? a.element.at < b.element.at : a.offset < b.offset
        }.map(\.element)
    }

    mutating func due(before exchange: RecordedExchange) -> ArraySlice<AppEvent> {
        let start = next
        while next < events.count, events[next].at <= exchange.startedAt { next += 1 }
        return events[start..<next]
    }

    mutating func rest() -> ArraySlice<AppEvent> {
        defer { next = events.count }
        return events[next...]
    }
}
