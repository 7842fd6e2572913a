import ConformCore

extension FlowChecker {
    /// `primary-push`: a primary-only push to a person whose installations a listing showed, none of them primary.
    mutating func checkPrimaryPush(_ call: Call, _ findings: inout Findings) {
        guard let shape = call.endpoint.pushShape, let body = call.body else { return }
        for user in Self.primaryOnlyTargets(shape, body) {
            // Judged only for a person whose installations a listing showed.
            guard let person = persons[user], !person.devices.isEmpty else { continue }
            exercise(.primaryPush)
            guard person.devices.allSatisfy({ devices[$0]?.isPrimary == false }) else { continue }
            let list = person.devices.sorted().prefix(5).joined(separator: ", ")
            findings.report(
                .primaryPush,
                "push with targetOnlyPrimaryDevices=true to '\(user)', whose devices (\(list)) are none of them primary: it reaches no device"
            )
        }
    }

    /// The externalUserIds a push targets with `targetOnlyPrimaryDevices: true` (v2 single and multi, v3).
    static func primaryOnlyTargets(_ shape: PushShape, _ body: JSONValue) -> [String] {
        func v2(_ message: JSONValue) -> String? {
            guard message["targetOnlyPrimaryDevices"]?.boolValue == true else { return nil }
            return message["to"]?["externalUserId"]?.stringValue
        }
        switch shape {
        case .single:
            return v2(body).map { [$0] } ?? []
        case .batch:
            return (body["messages"]?.arrayValue ?? []).compactMap(v2)
        case .destinations:
            return (body["messages"]?.arrayValue ?? []).flatMap { message in
                (message["destinations"]?.arrayValue ?? []).compactMap { destination in
                    guard destination["type"]?.stringValue == "EXTERNAL_USER_ID",
                        destination["targetOnlyPrimaryDevices"]?.boolValue == true
                    else { return nil }
                    return destination["externalUserId"]?.stringValue
                }
            }
        }
    }
}
