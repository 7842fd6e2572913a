import ConformDiagnostics
import ConformYAML

extension LoadContext {
    static let suiteKeys = [
        "suite", "title", "description", "step", "spec", "profile", "tags", "vars", "steps", "flows",
    ]
    static let stepKeys = [
        "name", "spec", "severity", "request", "expect", "should", "assume", "until", "capture", "emits", "eventually",
        "wait",
    ]

    mutating func suite(_ root: YAMLNode) -> Suite? {
        guard let pairs = mapping(root, "a suite") else { return nil }
        checkKeys(pairs, allowed: Self.suiteKeys, in: "a suite")
        let id = required(
            pairs, "suite", in: root, help: "start the file with 'suite: <id>', e.g. 'suite: login-personalize'"
        ).flatMap { string($0, "suite") }
        let title = required(pairs, "title", in: root, help: "add 'title: <one line saying what the suite certifies>'")
            .flatMap { string($0, "title") }
        let step = value(pairs, "step").flatMap { string($0, "step") } ?? ""
        let spec = value(pairs, "spec").flatMap { specReference($0) } ?? SpecReference()
        var profile = applicationModes[0]
        if let node = value(pairs, "profile"), let p = string(node, "profile") {
            if applicationModes.contains(p) {
                profile = p
            } else {
                diagnostics.append(
                    Diagnostic(.unknownApplicationMode(p, modes: applicationModes), file: file, mark: node.mark))
            }
        }
        var tags: [String] = []
        if let node = value(pairs, "tags") {
            if case .sequence(let items) = node.kind {
                for item in items {
                    guard let tag = string(item, "a tag") else { continue }
                    if !Self.isTag(tag) {
                        error(
                            item, "invalid tag '\(tag)'",
                            help:
                                "use lower-case letters, digits and '-', starting with a letter or digit, e.g. 'smoke'")
                    } else if tags.contains(tag) {
                        error(item, "tag '\(tag)' is listed twice", help: "remove the second '\(tag)'")
                    } else {
                        tags.append(tag)
                    }
                }
            } else {
                error(node, "tags must be a list, found \(node.kindDescription)", help: "write 'tags: [smoke, login]'")
            }
        }
        var variables: [Variable] = []
        if let node = value(pairs, "vars"), let vars = mapping(node, "vars") {
            for pair in vars {
                guard let name = name(of: pair, "variable") else { continue }
                let v = templateValue(pair.value)
                declare(name)
                variables.append(Variable(name: name, defaultValue: v, mark: pair.key.mark))
            }
        }
        var flows: [Flow] = []
        let stepsNode = value(pairs, "steps")
        let flowsNode = value(pairs, "flows")
        if let stepsNode, flowsNode != nil {
            error(
                stepsNode, "a suite has either 'steps' (one flow) or 'flows', not both",
                help: "move these steps into a flow under 'flows:'")
        }
        if let stepsNode {
            flows = [flow(name: "main", stepsNode, keys: ["steps"])]
        }
        if let flowsNode, let flowPairs = mapping(flowsNode, "flows") {
            for pair in flowPairs {
                guard let name = pair.key.scalarString else { continue }
                declare(name)
                flows.append(flow(name: name, pair.value, keys: ["flows", name]))
            }
            if flowPairs.isEmpty { error(flowsNode, "'flows' is empty", help: "add at least one flow with steps") }
        } else if stepsNode == nil, flowsNode == nil {
            error(
                root, "the suite has no steps",
                help: "add 'steps:' with at least one exchange, or 'flows:' with named lists of steps")
        }
        guard let id, let title else { return nil }
        return Suite(
            id: id, title: title, step: step, spec: spec, profile: profile, tags: tags, variables: variables,
            flows: flows, file: file)
    }

    /// A tag as `--tag` selects it: a word of lower-case ASCII letters, digits and `-`.
    static func isTag(_ text: String) -> Bool {
        guard let first = text.utf8.first, first != UInt8(ascii: "-"), text.utf8.count <= 64 else { return false }
        return text.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }

    func value(_ pairs: [YAMLNode.Pair], _ key: String) -> YAMLNode? {
        pairs.first { $0.key.scalarString == key }?.value
    }

    mutating func required(_ pairs: [YAMLNode.Pair], _ key: String, in node: YAMLNode, help: String) -> YAMLNode? {
        if let v = value(pairs, key) { return v }
        error(node, "missing required key '\(key)'", help: help, id: .yamlMissingKey)
        return nil
    }

    mutating func specReference(_ node: YAMLNode) -> SpecReference? {
        if case .scalar = node.kind { return string(node, "spec").map { SpecReference(section: $0) } }
        guard let pairs = mapping(node, "spec") else { return nil }
        checkKeys(pairs, allowed: ["section", "decisions"], in: "spec")
        var ref = SpecReference()
        if let s = value(pairs, "section") { ref.section = string(s, "spec.section") ?? "" }
        if let d = value(pairs, "decisions") {
            if case .sequence(let items) = d.kind {
                for item in items {
                    guard let id = string(item, "a decision id") else { continue }
                    if !isDecisionID(id) {
                        error(
                            item, "'\(id)' is not a decision id",
                            help: "decision ids look like D1 … D19 (see docs/decisions.md)")
                    }
                    ref.decisions.append(id)
                }
            } else {
                error(d, "decisions must be a list, found \(d.kindDescription)", help: "write 'decisions: [D2, D3]'")
            }
        }
        return ref
    }

    /// The flow `name` from its list of steps, found under `keys`: steps the parser streamed are taken as built.
    mutating func flow(name: String, _ node: YAMLNode, keys: [String]) -> Flow {
        guard case .sequence(let items) = node.kind else {
            error(
                node, "the steps of flow '\(name)' must be a list, found \(node.kindDescription)",
                help: "write each step as a list item starting with '- name: …'")
            return Flow(name: name, steps: [])
        }
        if items.isEmpty { error(node, "flow '\(name)' has no steps", help: "add at least one step") }
        // Sized once: a step is large, and a flow of many steps would otherwise keep up to half again as spare room.
        if let streamed = streamedSteps.removeValue(forKey: keys), streamed.items == items.count {
            // A list that grew step by step keeps up to as much again as spare room; past an eighth, copy it out.
            var steps = streamed.steps
            if steps.capacity - steps.count > steps.count / 8 {
                var exact: [Step] = []
                exact.reserveCapacity(steps.count)
                exact.append(contentsOf: steps)
                steps = exact
            }
            return Flow(name: name, steps: steps)
        }
        var steps: [Step] = []
        steps.reserveCapacity(items.count)
        for item in items {
            if let loaded = step(item) { steps.append(loaded) }
        }
        return Flow(name: name, steps: steps)
    }

    mutating func step(_ node: YAMLNode) -> Step? {
        guard let pairs = mapping(node, "a step") else { return nil }
        checkKeys(pairs, allowed: Self.stepKeys, in: "a step")
        let name = value(pairs, "name").flatMap { string($0, "name") }
        let spec = value(pairs, "spec").flatMap { specReference($0) } ?? SpecReference()
        if let waitNode = value(pairs, "wait") {
            for key in ["request", "expect", "should", "assume", "until", "capture", "emits", "eventually"] {
                if let other = pairs.first(where: { $0.key.scalarString == key }) {
                    error(
                        other.key, "a wait step cannot have '\(key)'",
                        help: "put the exchange in its own step after the wait")
                }
            }
            guard let wait = waitSpec(waitNode) else { return nil }
            return Step(name: name ?? "wait for \(wait.event)", action: .wait(wait), spec: spec, mark: node.mark)
        }
        guard let name else {
            error(
                node, "missing required key 'name' in a step", help: "add 'name: <what this exchange does>'",
                id: .yamlMissingKey)
            return nil
        }
        guard let requestNode = value(pairs, "request") else {
            error(
                node, "step '\(name)' has no 'request'",
                help: "add 'request:' with method and url, or make it a 'wait:' step", id: .yamlMissingKey)
            return nil
        }
        let request = requestSpec(requestNode)
        var severity = Severity.must
        if let s = value(pairs, "severity"), let text = string(s, "severity") {
            switch text {
            case "must": severity = .must
            case "should": severity = .should
            default:
                error(
                    s, "severity must be 'must' or 'should', found '\(text)'",
                    help: "for checks resting on a decision, put them under 'assume: {D<n>: …}'")
            }
        }
        var checks: [CheckGroup] = []
        if let e = value(pairs, "expect"), let r = responseSpec(e, "expect") {
            checks.append(CheckGroup(severity: severity, expectation: r))
        }
        if let e = value(pairs, "should"), let r = responseSpec(e, "should") {
            checks.append(CheckGroup(severity: .should, expectation: r))
        }
        if let a = value(pairs, "assume"), let groups = mapping(a, "assume") {
            for pair in groups {
                guard
                    let id = key(
                        of: pair, valid: isDecisionID, { "'\($0)' is not a decision id" },
                        help: "key each assumption by the decision it rests on, e.g. 'D1:'")
                else { continue }
                // One assumption per fact: a decision may list its facts, each a group judged and reported apart,
                // so that missing one cannot hide missing another.
                let facts = pair.value.sequenceItems ?? [pair.value]
                if facts.isEmpty { error(pair.value, "'assume.\(id)' lists no checks", help: "give at least one") }
                for (n, fact) in facts.enumerated() {
                    let what = pair.value.sequenceItems == nil ? "assume.\(id)" : "assume.\(id)[\(n)]"
                    if let r = responseSpec(fact, what) {
                        checks.append(CheckGroup(severity: .assumed, decision: id, expectation: r))
                    }
                }
            }
        }
        let captures = value(pairs, "capture").map { captureList($0) } ?? []
        let emits = value(pairs, "emits").flatMap { string($0, "emits") }
        var eventually: Eventually?
        if let e = value(pairs, "eventually") { eventually = eventuallySpec(e) }
        var until: ResponseSpec?
        if let u = value(pairs, "until") {
            until = responseSpec(u, "until")
            // A control is waited for: without a window of its own it gets the default one.
            if eventually == nil { eventually = Eventually(mark: u.mark) }
            if checks.isEmpty {
                error(
                    u, "step '\(name)' has 'until' but nothing to check until then",
                    help: "add 'expect:' with what must hold on every response until the control arrives")
            }
        }
        guard let request else { return nil }
        // Most steps check and capture what others do (every step's status and content type): one list for all.
        let exchange = Exchange(
            request: request, checks: checkLists.intern(checks), captures: captureLists.intern(captures),
            emits: emits, eventually: eventually, until: until)
        return Step(name: name, action: .exchange(exchange), spec: spec, mark: node.mark)
    }

    mutating func waitSpec(_ node: YAMLNode) -> WaitSpec? {
        if case .scalar = node.kind { return string(node, "wait").map { WaitSpec(event: $0) } }
        guard let pairs = mapping(node, "wait") else { return nil }
        checkKeys(pairs, allowed: ["event", "flow", "timeout"], in: "wait")
        guard
            let event = required(pairs, "event", in: node, help: "name the event, e.g. 'event: registrationUpdated'")
                .flatMap({ string($0, "event") })
        else { return nil }
        var spec = WaitSpec(event: event)
        spec.flow = value(pairs, "flow").flatMap { string($0, "flow") }
        if let t = value(pairs, "timeout"), let d = duration(t, "timeout") { spec.timeout = d }
        return spec
    }

    mutating func eventuallySpec(_ node: YAMLNode) -> Eventually? {
        if node.resolvedScalar == .bool(true) { return Eventually(mark: node.mark) }
        guard let pairs = mapping(node, "eventually") else { return nil }
        checkKeys(pairs, allowed: ["timeout", "interval"], in: "eventually")
        var e = Eventually(mark: node.mark)
        if let i = value(pairs, "interval"), let d = duration(i, "interval") {
            if d < .milliseconds(10) {
                error(i, "interval must be at least 10ms", help: "write e.g. 'interval: 200ms'")
            }
            e.interval = d
        }
        if let t = value(pairs, "timeout") {
            if case .string(let text)? = t.resolvedScalar, text.contains("{{") {
                e.window = template(t, "timeout")
            } else if let d = duration(t, "timeout") {
                if d < e.interval {
                    error(
                        t,
                        "timeout \(DurationText.format(d)) is shorter than the interval "
                            + "\(DurationText.format(e.interval))",
                        help: "give a timeout of at least one interval, e.g. 'timeout: 5s'")
                }
                e.timeout = d
            }
        }
        return e
    }

    mutating func captureList(_ node: YAMLNode) -> [Capture] {
        guard let pairs = mapping(node, "capture") else { return [] }
        var out: [Capture] = []
        for pair in pairs {
            guard let name = name(of: pair, "capture") else { continue }
            declare(name)
            if case .scalar(let text, _) = pair.value.kind {
                guard let source = sharedCaptureSource(text), text.hasPrefix("$") else {
                    error(
                        pair.value, "'\(text)' is not a JSON path",
                        help:
                            "write a path such as '$.pushRegId' or '$.instances[0].pushRegId', a list such as "
                            + "'$.payloads[*].messageId', or '{header: Name}'")
                    continue
                }
                out.append(Capture(name: name, source: source))
                continue
            }
            guard let spec = mapping(pair.value, "capture '\(name)'") else { continue }
            checkKeys(spec, allowed: ["json", "header", "status"], in: "capture '\(name)'")
            if let j = value(spec, "json"), let text = string(j, "json") {
                if let source = sharedCaptureSource(text) {
                    out.append(Capture(name: name, source: source))
                } else {
                    error(
                        j, "'\(text)' is not a JSON path",
                        help: "write a path such as '$.pushRegId', or a list such as '$.payloads[*].messageId'")
                }
            } else if let h = value(spec, "header"), let text = string(h, "header") {
                out.append(Capture(name: name, source: .header(text)))
            } else if value(spec, "status") != nil {
                out.append(Capture(name: name, source: .status))
            } else {
                error(
                    pair.value, "capture '\(name)' says nothing to capture",
                    help: "write '{json: $.path}', '{header: Name}' or '{status: true}'")
            }
        }
        return out
    }
}

extension LoadContext {
    /// ``captureSource(_:)`` once per text: a path written on many steps (`$.pushRegId`) is read once.
    mutating func sharedCaptureSource(_ text: String) -> Capture.Source? {
        if let known = captureSources[text] { return known }
        let source = Self.captureSource(text)
        if captureSources.count < Self.maxSharedTemplates { captureSources[text] = source }
        return source
    }

    /// What a capture's path reads: one value, or with a wildcard (`[*]`, `.*`, `..name`) the list of every match.
    static func captureSource(_ text: String) -> Capture.Source? {
        if let pattern = JSONPathPattern(text), pattern.hasWildcard { return .matches(pattern) }
        return JSONPath(parsing: text).map { .json($0) }
    }
}

extension LoadContext {
    /// The key of `pair`, `nil` when it is no scalar; one that is not `valid` is reported, `problem` saying why.
    mutating func key(
        of pair: YAMLNode.Pair, valid: (String) -> Bool, _ problem: (String) -> String, help: String
    ) -> String? {
        guard let key = pair.key.scalarString else { return nil }
        if !valid(key) { error(pair.key, problem(key), help: help) }
        return key
    }

    /// The name `pair` declares (a `what`: a variable, a capture), as ``key(of:valid:_:help:)`` reads it: one that
    /// is not an identifier is reported.
    mutating func name(of pair: YAMLNode.Pair, _ what: String) -> String? {
        key(
            of: pair, valid: isIdentifier, { "invalid \(what) name '\($0)'" },
            help: "use letters, digits and '_', starting with a letter")
    }
}

func isIdentifier(_ s: String) -> Bool {
    guard let f = s.first, f.isLetter || f == "_" else { return false }
    return s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
}

func isDecisionID(_ s: String) -> Bool {
    s.count >= 2 && s.first == "D" && s.dropFirst().allSatisfy(\.isNumber)
}
