import ConformCore

/// The generator's abstract model of what a sequence has done so far, kept while it draws, as the state machines of
/// QuickCheck and Hypothesis keep theirs: which installations are registered, whose each one is, which is primary
/// and which ever was, which persons hold user data, which pushes no sync has read yet or no report acknowledged,
/// what each installation captured, and what changed since a read last showed it. It follows the profile's ``ExploreEffect``s and only guides what is drawn next: whether an
/// answer is right is still the reference's call.
struct ExploreModel: Sendable, Hashable {
    struct Device: Sendable, Hashable {
        var alive = true
        var person: Int?
        var primary = false
        var everPrimary = false
        /// Its owner or primary flag changed since a read of it last showed it.
        var unread = false
        /// It left a person holding user data (a logout, a switch), and no read of it has shown it since.
        var leftData = false
        /// Pushes no sync of it has read yet: ones meant to reach it, ones a primary-only push kept away from it.
        var pending = 0
        var keptAway = 0
        /// Pushes a sync handed out and no delivery report acknowledged: every sync hands them out again.
        var held = 0
        /// Another device of its person reported a delivery while this one still had a copy to receive, and no
        /// sync of it has shown since whether its copy stayed.
        var siblingReported = false
        /// What it captured (``ExploreCapture``), in order, by capture: how many values each capture is expected
        /// to hold (a sync's message ids: the pushes it handed out).
        var captures: [String: [Int]] = [:]
        /// The captures (by capture, their index in ``captures``) it reported delivered.
        var reported: [String: Set<Int>] = [:]
    }

    private(set) var devices: [Device] = []
    /// Persons whose user data the sequence set.
    private(set) var withData: Set<Int> = []
    /// Persons whose devices, primary device or data changed since a read last showed them.
    private(set) var unreadPersons: Set<Int> = []

    /// The alive devices of `person`.
    func devices(of person: Int) -> [Int] {
        devices.indices.filter { devices[$0].alive && devices[$0].person == person }
    }

    /// Whether the step sets the parameter named `name` (its value is `true` or `1`).
    static func sets(_ name: String?, _ op: ExploreOperation, _ step: ExploreStep) -> Bool {
        guard let name, let i = op.parameters.firstIndex(where: { $0.name == name }), i < step.choices.count,
            step.choices[i] < op.parameters[i].values.count
        else { return false }
        return ["true", "1"].contains(op.parameters[i].values[step.choices[i]])
    }

    /// The device the effect acts on (`<device>` or `<other>`), when the call may act on it: another installation
    /// only when it shares the caller's person.
    private func acted(on slot: ExploreSlot, _ step: ExploreStep) -> Int? {
        guard slot == .other else { return step.device }
        guard let mine = devices[step.device].person, devices[step.other].person == mine else { return nil }
        return step.other
    }

    /// The model after every step of `steps`.
    static func after(_ steps: some Sequence<ExploreStep>, _ operations: [ExploreOperation]) -> ExploreModel {
        var model = ExploreModel()
        for step in steps { model.apply(step, operations[step.operation]) }
        return model
    }

    /// The earlier captures of `capture` on `device` expected to hold something, as a captured parameter's
    /// choices (0: the newest).
    func filledCaptures(_ capture: String, device: Int) -> [Int] {
        guard devices.indices.contains(device), let counts = devices[device].captures[capture] else { return [] }
        return (0..<counts.count).filter { counts[counts.count - 1 - $0] > 0 }
    }

    /// How many values the captures the captured parameters of `step` name are expected to hold (the largest),
    /// and whether each of them was reported delivered already.
    private func captured(_ step: ExploreStep, _ op: ExploreOperation) -> (count: Int, reported: Bool)? {
        var most: (count: Int, reported: Bool)?
        for (i, parameter) in op.parameters.enumerated() {
            guard let capture = parameter.captured, i < step.choices.count,
                let counts = devices[step.device].captures[capture], step.choices[i] < counts.count
            else { continue }
            let index = counts.count - 1 - step.choices[i]
            let reported = devices[step.device].reported[capture]?.contains(index) ?? false
            most = (max(most?.count ?? 0, counts[index]), (most?.reported ?? true) && reported)
        }
        return most
    }

    private static func readsPushes(_ op: ExploreOperation) -> Bool {
        op.observations.contains { if case .texts = $0 { true } else { false } }
    }

    mutating func apply(_ step: ExploreStep, _ op: ExploreOperation) {
        if op.registers != nil {
            devices.append(Device())
            return
        }
        let d = step.device
        if case .reportsDelivered(let parameter) = op.effect,
            let i = op.parameters.firstIndex(where: { $0.name == parameter }),
            let capture = op.parameters[i].captured, let counts = devices[d].captures[capture], i < step.choices.count,
            step.choices[i] < counts.count
        {
            let reported = counts[counts.count - 1 - step.choices[i]]
            devices[d].held = max(0, devices[d].held - reported)
            devices[d].reported[capture, default: []].insert(counts.count - 1 - step.choices[i])
            if reported > 0, let p = devices[d].person {
                for y in devices(of: p) where y != d && devices[y].pending + devices[y].held > 0 {
                    devices[y].siblingReported = true
                }
            }
        }
        if let capture = op.captures {
            let count = Self.readsPushes(op) ? devices[d].pending + devices[d].held : 1
            devices[d].captures[capture.name, default: []].append(count)
        }
        if op.reads {
            if Self.readsPushes(op) {
                devices[d].held += devices[d].pending
                devices[d].pending = 0
                devices[d].keptAway = 0
                devices[d].siblingReported = false
            } else if op.slots.contains(.device) {
                devices[d].unread = false
                devices[d].leftData = false
                if let p = devices[d].person { unreadPersons.remove(p) }
            } else if op.slots.contains(.person) {
                unreadPersons.remove(step.person)
            }
            return
        }
        if op.retires {
            leave(d)
            devices[d].alive = false
            return
        }
        if op.slots.contains(.text) {
            let onlyPrimary = Self.sets(op.primaryOnly, op, step)
            if op.slots.contains(.person) {
                for x in devices(of: step.person) {
                    if !onlyPrimary || devices[x].primary { devices[x].pending += 1 } else { devices[x].keptAway += 1 }
                }
            }
            if op.slots.contains(.device) { devices[d].pending += 1 }
            return
        }
        switch op.effect {
        case .personalizes(let force, let primary):
            let current = devices[d].person
            if let current, current != step.person, !Self.sets(force, op, step) { return }
            if current != step.person {
                leave(d)
                devices[d].person = step.person
            }
            unreadPersons.insert(step.person)
            if Self.sets(primary, op, step) { setPrimary(d, true) }
        case .depersonalizes(let slot):
            if let x = acted(on: slot, step) { leave(x) }
        case .setsPrimary(let slot, let parameter):
            if let x = acted(on: slot, step) { setPrimary(x, Self.sets(parameter, op, step)) }
        case .setsUserData:
            if let p = devices[d].person {
                withData.insert(p)
                unreadPersons.insert(p)
            }
        case .reportsDelivered, nil:
            return
        }
    }

    /// Device `x` leaves its person: not primary any more, and if that person held data, its next read shows
    /// whether the data stayed behind.
    private mutating func leave(_ x: Int) {
        if let p = devices[x].person {
            if withData.contains(p) { devices[x].leftData = true }
            unreadPersons.insert(p)
        }
        devices[x].person = nil
        devices[x].primary = false
        devices[x].unread = true
        // Pushes still queued for the person it left are for that person only: a sync shows whether they stayed.
        devices[x].keptAway += devices[x].pending + devices[x].held
        devices[x].pending = 0
        devices[x].held = 0
    }

    private mutating func setPrimary(_ x: Int, _ value: Bool) {
        if value, let p = devices[x].person {
            for y in devices(of: p) where y != x { devices[y].primary = false }
        }
        devices[x].primary = value
        devices[x].everPrimary = devices[x].everPrimary || value
        devices[x].unread = true
        if let p = devices[x].person { unreadPersons.insert(p) }
    }

    /// How many things the sequence built the step would use (show, act on, push to), for the generator to draw it
    /// more likely: a read of a device or person that changed since a read last showed it (more for a device that
    /// left a person holding data); a sync of a device a push was meant for (more for one a primary-only push kept
    /// away); a push to a person with several devices (more for a primary-only one, to a person with a primary
    /// device and one that never was); a login that gives a person a second device or takes a device away from a
    /// person holding data, pushes not synced yet or other devices; a logout of such a device, or of another device
    /// of the caller's person; a primary flag set next to a device that
    /// never was primary; the first user data of a person. 0 for a step that uses nothing in particular.
    func uses(_ step: ExploreStep, _ op: ExploreOperation) -> Int {
        if op.registers != nil || op.retires { return 0 }
        let d = step.device
        // Sending back what a sync captured: more where the device's person has another device a push is meant
        // for (its copy must stay).
        var sendsBack = 0
        if let (count, reported) = captured(step, op), count > 0 {
            let siblings = devices[d].person.map { p in
                devices(of: p).contains { $0 != d && devices[$0].pending + devices[$0].held > 0 }
            }
            sendsBack = 1 + (siblings == true && !reported ? 3 : 0)
        }
        if op.reads {
            if Self.readsPushes(op) {
                return sendsBack + (devices[d].pending > 0 ? 1 : 0) + (devices[d].keptAway > 0 ? 2 : 0)
                    + (devices[d].siblingReported ? 2 : 0)
            }
            if op.slots.contains(.device) {
                let device = devices[d]
                let personUnread = device.person.map { unreadPersons.contains($0) } ?? false
                // Data left behind shows in a read of the device's user (which lists its installations), not of
                // the installation's own flags and system data.
                let showsUser = op.observations.contains { if case .members = $0 { true } else { false } }
                return (device.unread ? 1 : 0) + (device.leftData && showsUser ? 2 : 0) + (personUnread ? 1 : 0)
            }
            return unreadPersons.contains(step.person) ? 1 : 0
        }
        if sendsBack > 0 { return sendsBack }
        if op.slots.contains(.text) {
            guard op.slots.contains(.person) else { return 0 }
            let reached = devices(of: step.person)
            var n = reached.count >= 2 ? 2 : 0
            if Self.sets(op.primaryOnly, op, step), reached.contains(where: { devices[$0].primary }),
                reached.contains(where: { !devices[$0].everPrimary })
            {
                n += 2
            }
            return n
        }
        switch op.effect {
        case .personalizes(let force, _):
            let current = devices[d].person
            guard current != step.person else { return 0 }
            if current != nil && !Self.sets(force, op, step) { return 0 }
            let sibling = devices(of: step.person).isEmpty ? 0 : 1
            let awayFromData = current.map { withData.contains($0) } == true ? 1 : 0
            let awayFromPushes = current != nil && devices[d].pending + devices[d].held > 0 ? 1 : 0
            // A forced switch away from a person with other devices: they must stay with it (D4).
            let awayFromSiblings = current.map { devices(of: $0).count > 1 } == true ? 1 : 0
            return sibling + awayFromData + awayFromPushes + awayFromSiblings
        case .depersonalizes(let slot):
            guard let x = acted(on: slot, step), let p = devices[x].person else { return 0 }
            // The logout of another device of the caller's person (§3.5): the caller must stay logged in.
            return (withData.contains(p) ? 2 : 0) + (devices[x].pending > 0 ? 1 : 0) + (x != step.device ? 1 : 0)
        case .setsPrimary(let slot, let parameter):
            guard Self.sets(parameter, op, step), let x = acted(on: slot, step), !devices[x].primary,
                let p = devices[x].person
            else { return 0 }
            return devices(of: p).contains { $0 != x && !devices[$0].everPrimary } ? 1 : 0
        case .setsUserData:
            guard let p = devices[d].person else { return 0 }
            return withData.contains(p) ? 0 : 1
        case .reportsDelivered, nil:
            return 0
        }
    }
}
