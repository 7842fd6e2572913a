import ConformCore

/// Writes a sequence as an ordinary suite (docs/suite-format.md): devices captured as `d1`, `d2`…, persons `p1`…,
/// their tags `g1`…, push texts `t1`…, each fresh on every run (`{{ uuid }}`), so a live target needs no reset;
/// what an answer gives its installation (``ExploreCapture``) is captured as `received1`… and sent back by name.
struct SuiteWriter: Sendable {
    var exploration: ProtocolProfile.Exploration
    var application: ExploreApplication
    var applicationMode: String

    /// The variables a sequence names beyond the application's, with their defaults.
    func variables(of sequence: ExploreSequence) -> (persons: Int, texts: Int) {
        var persons = 0
        var texts = 0
        for step in sequence.steps {
            let op = exploration.operations[step.operation]
            if op.slots.contains(.person) { persons = max(persons, step.person + 1) }
            if op.slots.contains(.text) { texts += 1 }
        }
        // `<sub>` names p1 for a device no one personalized yet.
        return (max(persons, 1), texts)
    }

    /// The suite's text; `expectations` (one per step) make it judge, without them it only plays.
    func render(
        _ sequence: ExploreSequence, id: String, title: String, description: String, window: String,
        interval: String = "200ms", expectations: [StepExpectation]? = nil
    ) -> String {
        let (persons, texts) = variables(of: sequence)
        var out = [
            "suite: \(id)", "title: \(JSONValue.string(title).serialized())", "tags: [explore]",
            "description: \(JSONValue.string(description).serialized())",
        ]
        if applicationMode != "all" { out.append("profile: \(applicationMode)") }
        out.append("vars:")
        for variable in application.variables { out.append("  \(variable.name): \(quoted(variable.value))") }
        out.append("  asyncWindow: \(window)")
        for p in 1...persons {
            out.append("  p\(p): \"explore-p\(p)-{{ uuid }}\"")
            out.append("  g\(p): \"explore-tag-p\(p)-{{ uuid }}\"")
        }
        for t in 0..<texts { out.append("  t\(t + 1): \"explore push \(t + 1) {{ uuid }}\"") }
        out.append("steps:")
        var text = 0
        var sub: [Int: Int] = [:]
        var ledger = CaptureLedger()
        for (index, step) in zip(sequence.steps.indices, sequence.steps) {
            let op = exploration.operations[step.operation]
            if op.slots.contains(.text) { text += 1 }
            // A JWT's subject is the person a login (refused or not) last named for the device.
            if case .personalizes = op.effect, op.slots.contains(.person) { sub[step.device] = step.person }
            // A normalized sequence names only values its installation captured before.
            let captured = ledger.arguments(of: step, op) ?? [:]
            out.append("  - name: \(JSONValue.string(describe(step, text: text, captured: captured)).serialized())")
            out.append("    spec: \(JSONValue.string(op.spec).serialized())")
            out.append("    request:")
            let request = fill(op, step, text: text, sub: sub[step.device] ?? step.person, captured: captured)
            for line in request.split(separator: "\n") { out.append("      " + line) }
            var captures: [String] = []
            if let path = op.registers { captures.append("d\(step.device + 1): \(path)") }
            if let capture = op.captures, let name = ledger.record(step, op) {
                captures.append("\(name): \(JSONValue.string(capture.path).serialized())")
            }
            if !captures.isEmpty { out.append("    capture: {\(captures.joined(separator: ", "))}") }
            if let expectations { out += expectations[index].lines(interval: interval) }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// One line naming what a step does: `personalize d1 as p2 (force=true, primary=false)`; a captured parameter
    /// by the variable it sends (`delivered=received3`).
    func describe(_ step: ExploreStep, text: Int, captured: [String: String] = [:]) -> String {
        let op = exploration.operations[step.operation]
        var words = [op.name]
        if op.registers != nil { words.append("d\(step.device + 1)") }
        if op.slots.contains(.device) { words.append("d\(step.device + 1)") }
        if op.slots.contains(.other) { words.append("→ d\(step.other + 1)") }
        if op.slots.contains(.person) {
            words.append((op.slots.contains(.device) ? "as " : "to ") + "p\(step.person + 1)")
        }
        if op.slots.contains(.text) { words.append("(t\(text))") }
        let parameters = zip(op.parameters, step.choices).map { parameter, choice in
            "\(parameter.name)="
                + (parameter.captured == nil ? parameter.values[choice] : captured[parameter.name] ?? "?")
        }
        if !parameters.isEmpty { words.append("(" + parameters.joined(separator: ", ") + ")") }
        return words.joined(separator: " ") + " [\(op.endpoint)]"
    }

    private func fill(
        _ op: ExploreOperation, _ step: ExploreStep, text: Int, sub: Int, captured: [String: String]
    ) -> String {
        var values: [String: String] = [:]
        for (parameter, choice) in zip(op.parameters, step.choices) {
            values[parameter.name] =
                parameter.captured == nil ? parameter.values[choice] : captured[parameter.name] ?? ""
        }
        values["device"] = "{{ d\(step.device + 1) }}"
        values["other"] = "{{ d\(step.other + 1) }}"
        values["personVariable"] = "p\(step.person + 1)"
        values["person"] = "{{ p\(step.person + 1) }}"
        values["tag"] = "{{ g\(step.person + 1) }}"
        values["text"] = "{{ t\(text) }}"
        values["sub"] = "p\(sub + 1)"
        // The application's authorization names placeholders of its own (`<sub>`).
        values["userAuth"] = Self.expand(application.userAuthorization, values)
        return Self.expand(op.request, values)
    }

    /// `text` with every `<name>` whose name `values` has replaced by its value, in one pass; any other `<`
    /// stays as it is.
    static func expand(_ text: String, _ values: [String: String]) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 64)
        var rest = text[...]
        while let open = rest.firstIndex(of: "<") {
            out += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: ">"),
                let value = values[String(rest[afterOpen..<close])]
            else {
                out += "<"
                rest = rest[afterOpen...]
                continue
            }
            out += value
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return out
    }

    private func quoted(_ value: String) -> String { JSONValue.string(value).serialized() }
}
