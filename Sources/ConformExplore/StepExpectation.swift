import ConformCore
import ConformReference

/// What a generated step expects, worked out from the reference's answer under the profile's rules: the checks that
/// must hold, those a decision assumes, the control a read repeats until (pushes that must arrive), and whether it
/// may be read again within the delivery window.
struct StepExpectation: Sendable, Hashable {
    var expect: [(key: String, value: YAMLFlow)] = []
    var assume: [(decision: String, group: YAMLFlow)] = []
    var until: YAMLFlow?
    var eventually = false

    static func == (lhs: StepExpectation, rhs: StepExpectation) -> Bool { lhs.lines() == rhs.lines() }
    func hash(into hasher: inout Hasher) { hasher.combine(lines()) }

    mutating func must(_ key: String, _ value: YAMLFlow) {
        if let i = expect.firstIndex(where: { $0.key == key }) {
            expect[i].value = expect[i].value.merged(with: value)
        } else {
            expect.append((key, value))
        }
    }

    mutating func add(_ rule: ExploreRule, json: YAMLFlow) {
        switch rule {
        case .must: must("json", json)
        case .assumed(let decision): assume.append((decision, .map([("json", json)])))
        }
    }

    /// The step's `expect`, `assume`, `until` and `eventually` keys, indented for a step of a suite's `steps`; a
    /// read is sent again every `interval` within the window.
    func lines(interval: String = "200ms") -> [String] {
        var out: [String] = []
        if !expect.isEmpty {
            out.append("    expect:")
            for (key, value) in expect { out.append("      \(key): \(value.text)") }
        }
        if !assume.isEmpty {
            out.append("    assume:")
            var decisions: [String] = []
            for (decision, _) in assume where !decisions.contains(decision) { decisions.append(decision) }
            for decision in decisions {
                out.append("      \(decision):")
                for (d, group) in assume where d == decision { out.append("        - \(group.text)") }
            }
        }
        if let until { out.append("    until: \(until.text)") }
        if eventually { out.append("    eventually: {timeout: \"{{ asyncWindow }}\", interval: \(interval)}") }
        return out
    }
}

/// Turns the reference's answer to one operation into the step's expectations.
struct ExpectationBuilder: Sendable {
    var exploration: ProtocolProfile.Exploration
    /// Concrete values of the reference's play (its device ids, the persons, tags and texts) by variable name.
    var names: [String: String]
    /// The variables of every push text sent so far in the sequence, in order.
    var textsSent: [String]
    /// What the reference did with each push text so far, by its variable.
    var pushes: [String: PushFacts] = [:]
    /// The reference's id of the device the step names.
    var device: String?

    func expectation(for op: ExploreOperation, response: HTTPResponse) -> StepExpectation {
        var e = StepExpectation()
        e.eventually = op.reads
        let status = response.status.rawValue
        let body = try? JSONValue.parse(response.body)
        if status < 300 {
            if let decision = op.statusAssumedBy {
                e.must("status", .map([("$lt", .raw("500"))]))
                e.assume.append((decision, .map([("status", .raw("2xx"))])))
            } else {
                e.must("status", .raw("2xx"))
            }
            for observation in op.observations { observe(observation, in: body, response, into: &e) }
            return e
        }
        let classText = "\(status / 100)xx"
        let code = body.flatMap { value(at: exploration.errorCodePath, in: $0) }?.stringValue
        let codeCheck = code.flatMap { exploration.mustErrorCodes.contains($0) ? $0 : nil }.map {
            YAMLFlow.at(exploration.errorCodePath, .string($0))
        }
        if let code, let decision = op.assumedRefusals[code] ?? exploration.assumedRefusals[code] {
            e.must("status", .map([("$lt", .raw("500"))]))
            e.assume.append((decision, .map([("status", .raw(classText))])))
            if let codeCheck { e.assume.append((decision, .map([("json", codeCheck)]))) }
        } else {
            e.must("status", .raw(classText))
            if let codeCheck { e.must("json", codeCheck) }
            // What a refusal shows is judged only where the target must refuse too: a 2xx it may answer instead
            // has no error envelope, media type or framing to compare.
            for observation in exploration.refusalObservations + op.refusalObservations {
                observe(observation, in: body, response, into: &e)
            }
        }
        return e
    }

    private func observe(
        _ observation: ExploreObservation, in body: JSONValue?, _ response: HTTPResponse, into e: inout StepExpectation
    ) {
        switch observation {
        case .header(let name, let pattern, let rule):
            let matching = YAMLFlow.map([("$regex", .string(pattern))])
            let sent = response.headerFields[name].map { Self.matches($0, pattern) } ?? false
            let wanted = sent ? matching : .map([("$oneOf", .list([.raw("$absent"), matching]))])
            switch rule {
            case .must: e.must("headers", .map([(name, wanted)]))
            case .assumed(let decision): e.assume.append((decision, .map([("headers", .map([(name, wanted)]))])))
            }
        case .value(let path, let rule):
            let found = body.flatMap { value(at: path, in: $0) }
            let wanted = expected(found)
            e.add(
                rule, json: wanted == .raw("$none") && !path.contains("[") ? Self.none(at: path) : .at(path, wanted))
        case .flag(let path, let whenSet, let whenClear):
            let set = body.flatMap { value(at: path, in: $0) }?.boolValue == true
            e.add(set ? whenSet : whenClear, json: .at(path, set ? .raw("true") : .clear))
        case .members(let path, let key, let rule, let flag, let whenSet, let whenClear):
            let items = body.flatMap { value(at: path, in: $0) }?.arrayValue ?? []
            guard !items.isEmpty else {
                e.add(rule, json: Self.none(at: path))
                return
            }
            var members: [YAMLFlow] = []
            var flags: [(rule: ExploreRule, item: YAMLFlow)] = []
            for item in items {
                let id = item[key].map(expected) ?? .raw("$none")
                let set = item[flag]?.boolValue == true
                members.append(.map([(key, id)]))
                flags.append((set ? whenSet : whenClear, .map([(key, id), (flag, set ? .raw("true") : .clear)])))
            }
            e.add(rule, json: .at(path, .map([("$anyOrder", .list(members))])))
            for flagRule in [whenSet, whenClear] where flags.contains(where: { $0.rule == flagRule }) {
                let items = flags.filter { $0.rule == flagRule }.map(\.item)
                if case .assumed = flagRule {
                    for item in items { e.add(flagRule, json: .at(path, .map([("$contains", .list([item]))]))) }
                } else {
                    e.add(flagRule, json: .at(path, .map([("$contains", .list(items))])))
                }
            }
        case .texts(let path, let textKey, let rule):
            let items = body.flatMap { value(at: path, in: $0) }?.arrayValue ?? []
            let received = Set(items.compactMap { $0[textKey]?.stringValue })
            let arrived = textsSent.filter { names[$0].map(received.contains) ?? false }
            let away = textsSent.filter { !arrived.contains($0) }
            func text(_ name: String) -> YAMLFlow { .map([(textKey, .raw("\"{{ \(name) }}\""))]) }
            // Texts kept away under a MUST, then those only a decision keeps away (ExplorePushAssumptions).
            var groups: [(rule: ExploreRule, texts: [String])] = []
            for name in away {
                let keptAwayBy = assumption(keepingAway: name).map(ExploreRule.assumed) ?? rule
                if let i = groups.firstIndex(where: { $0.rule == keptAwayBy }) {
                    groups[i].texts.append(name)
                } else {
                    groups.append((keptAwayBy, [name]))
                }
            }
            for (groupRule, names) in groups.sorted(by: { $0.rule == rule && $1.rule != rule }) {
                let any = names.count == 1 ? text(names[0]) : .map([("$oneOf", .list(names.map(text)))])
                e.add(groupRule, json: .at(path, .map([("$not", .map([("$contains", .list([any]))]))])))
            }
            if !arrived.isEmpty {
                e.until = .map([("json", .at(path, .map([("$contains", .list(arrived.map(text)))])))])
                e.eventually = true
            }
        }
    }

    /// The decision that only assumes push `name` stays away from the step's device, when one does: the reference
    /// queued it there and withdrew it, or it is a primary-only push to a person without a primary device, or to a
    /// device that had been primary.
    private func assumption(keepingAway name: String) -> String? {
        guard let facts = pushes[name], let device else { return nil }
        let rules = exploration.pushAssumptions
        if facts.disabledOn.contains(device), let decision = rules.disabled { return decision }
        if facts.queuedOn.contains(device), let decision = rules.withdrawn { return decision }
        guard facts.primaryOnly else { return nil }
        if !facts.personHadPrimary, let decision = rules.noPrimary { return decision }
        if facts.primaryBefore.contains(device), let decision = rules.formerPrimary { return decision }
        return nil
    }

    /// No value at `path`, also where a member on the way to it has none: `{a: {$oneOf: [$none, {b: $none}]}}` for
    /// `$.a.b`, so an implementation that leaves out an empty map (or sends it as `null`) reads as one that sends it.
    static func none(at path: String) -> YAMLFlow {
        func nested(_ members: ArraySlice<String>) -> YAMLFlow {
            guard let first = members.first else { return .raw("$none") }
            guard members.count > 1 else { return .map([(first, .raw("$none"))]) }
            return .map([(first, .map([("$oneOf", .list([.raw("$none"), nested(members.dropFirst())]))]))])
        }
        return nested(ArraySlice(path.split(separator: ".").dropFirst().map(String.init)))
    }

    /// What the reference's value expects: the variable it stands for, `$none` for no value, `true`, clear for
    /// `false`, else the literal.
    private func expected(_ value: JSONValue?) -> YAMLFlow {
        switch value {
        case nil, .null?: return .raw("$none")
        case .string(let s)?:
            if s.isEmpty { return .raw("$none") }
            if let name = names.first(where: { $0.value == s })?.key { return .raw("\"{{ \(name) }}\"") }
            return .string(s)
        case .bool(true)?: return .raw("true")
        case .bool(false)?: return .clear
        case let other?: return .raw(other.serialized())
        }
    }

    /// The value at a simple JSON path (`$.a.b`, `$.list[0].b`).
    func value(at path: String, in body: JSONValue) -> JSONValue? {
        var current: JSONValue? = body
        for step in path.split(separator: ".").dropFirst() {
            let (member, index) = YAMLFlow.step(step)
            current = current?[member]
            if let index { current = current?.arrayValue.flatMap { $0.indices.contains(index) ? $0[index] : nil } }
        }
        return current
    }

    /// Whether `text` matches the regular expression `pattern` (a header's value; a pattern that does not compile
    /// matches nothing).
    static func matches(_ text: String, _ pattern: String) -> Bool {
        (try? Regex(pattern)).map { text.contains($0) } ?? false
    }
}

/// What the reference did with one push: the devices it queued it on, whether it was primary-only, whether the
/// person it named had a primary device when it was sent, and which devices had been primary until then.
struct PushFacts: Sendable, Hashable {
    var queuedOn: Set<String> = []
    var primaryOnly = false
    var personHadPrimary = false
    /// The reference's ids of every device that had been primary up to the push.
    var primaryBefore: Set<String> = []
    /// The reference's ids of the devices whose registration was disabled when the push was sent.
    var disabledOn: Set<String> = []

    init() {}

    init(
        _ op: ExploreOperation, _ step: ExploreStep, names: [String: String], before: ReferenceSnapshot,
        after: ReferenceSnapshot?
    ) {
        if let after {
            for person in after.persons {
                for installation in person.installations {
                    let earlier = Set(before.installation(installation.pushRegId)?.pendingMessageIds ?? [])
                    if installation.pendingMessageIds.contains(where: { !earlier.contains($0) }) {
                        queuedOn.insert(installation.pushRegId)
                    }
                }
            }
        }
        if let parameter = op.primaryOnly, let i = op.parameters.firstIndex(where: { $0.name == parameter }),
            i < step.choices.count
        {
            primaryOnly = ["true", "1"].contains(op.parameters[i].values[step.choices[i]])
        }
        for person in before.persons {
            disabledOn.formUnion(person.installations.filter { !$0.regEnabled }.map(\.pushRegId))
        }
        let person = names["p\(step.person + 1)"].flatMap { before.person(externalUserId: $0) }
        personHadPrimary = person?.installations.contains(where: \.isPrimary) ?? false
    }
}
