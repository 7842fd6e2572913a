import ConformCore

/// One operation of a sequence: which of the profile's operations, on which logical devices and person, with which
/// parameter values. Devices are numbered in the order the sequence registers them, persons as the sequence uses
/// them; each side (target, reference) keeps its own ids for them.
public struct ExploreStep: Sendable, Hashable {
    /// The index of the operation in the profile's ``ProtocolProfile/Exploration/operations``.
    public var operation: Int
    /// The logical device (`<device>`; for a registration, the device it registers).
    public var device: Int
    /// The second device (`<other>`).
    public var other: Int
    /// The logical person (`<person>`, `<tag>`).
    public var person: Int
    /// The index of each parameter's value.
    public var choices: [Int]

    public init(operation: Int, device: Int = 0, other: Int = 0, person: Int = 0, choices: [Int] = []) {
        self.operation = operation
        self.device = device
        self.other = other
        self.person = person
        self.choices = choices
    }
}

/// A sequence of operations, valid by construction: every device it names was registered before, only reads
/// name one an operation retired (deleted), to see that it is gone, and every captured value a step sends back was
/// captured before on the same installation.
public struct ExploreSequence: Sendable, Hashable {
    public var steps: [ExploreStep]
    public init(_ steps: [ExploreStep]) { self.steps = steps }

    /// The steps that remain valid once the others are gone, devices renumbered in registration order and persons
    /// in order of first use: what every shrinking attempt plays. A step that sends back a captured value its
    /// installation no longer captured (the capturing step is gone) goes too.
    public func normalized(_ operations: [ExploreOperation]) -> ExploreSequence {
        var deviceMap: [Int: Int] = [:]
        var personMap: [Int: Int] = [:]
        var retired: Set<Int> = []
        var ledger = CaptureLedger()
        var out: [ExploreStep] = []
        for var step in steps {
            let op = operations[step.operation]
            if op.registers != nil {
                guard deviceMap[step.device] == nil else { continue }
                deviceMap[step.device] = deviceMap.count
                step.device = deviceMap[step.device]!
                out.append(step)
                continue
            }
            if op.slots.contains(.device) {
                guard let d = deviceMap[step.device], op.reads || !retired.contains(d) else { continue }
                step.device = d
            }
            if op.slots.contains(.other) {
                guard let o = deviceMap[step.other], !retired.contains(o), o != step.device else { continue }
                step.other = o
            }
            guard ledger.arguments(of: step, op) != nil else { continue }
            if op.slots.contains(.person) {
                if personMap[step.person] == nil { personMap[step.person] = personMap.count }
                step.person = personMap[step.person]!
            }
            if op.retires { retired.insert(step.device) }
            ledger.record(step, op)
            out.append(step)
        }
        return ExploreSequence(out)
    }
}

/// The core's ``SplitMix64``: the same on every platform, so a seed replays the same sequences.
typealias SeededRandom = SplitMix64

/// Draws sequences over at most `devices` installations and `persons` persons from the profile's operations.
struct SequenceGenerator: Sendable {
    var operations: [ExploreOperation]
    var devices: Int
    var persons: Int
    var maxLength: Int
    /// How much more likely a step is for each thing the sequence built that it uses (``ExploreModel/uses(_:_:)``):
    /// `1 + focus × uses` times; 0 draws as the profile's weights alone say.
    var focus = 6

    /// The steps that may come next after `sequence` (every operation, device, person and parameter value), with
    /// persons used in order of first use (symmetry: persons not used yet are interchangeable). A captured
    /// parameter takes the installation's earlier captures that the model expects to hold something
    /// (``ExploreModel/filledCaptures(_:device:)``): with none, the operation is not offered on that installation.
    func candidates(after sequence: ExploreSequence) -> [ExploreStep] {
        let (registered, alive, usedPersons) = universe(of: sequence)
        let named = Array(0..<registered)
        let model = ExploreModel.after(sequence.steps, operations)
        var out: [ExploreStep] = []
        for (index, op) in operations.enumerated() {
            if op.registers != nil {
                guard registered < devices else { continue }
                for choices in combinations(op.parameters.map { Array($0.values.indices) }) {
                    out.append(ExploreStep(operation: index, device: registered, choices: choices))
                }
                continue
            }
            let deviceChoices = op.slots.contains(.device) ? (op.reads ? named : alive) : [0]
            let personChoices = op.slots.contains(.person) ? Array(0..<min(persons, usedPersons + 1)) : [0]
            for d in deviceChoices {
                let values = op.parameters.map { parameter in
                    parameter.captured.map { model.filledCaptures($0, device: d) } ?? Array(parameter.values.indices)
                }
                let otherChoices = op.slots.contains(.other) ? alive.filter { $0 != d } : [0]
                for choices in combinations(values) {
                    for o in otherChoices {
                        for p in personChoices {
                            out.append(ExploreStep(operation: index, device: d, other: o, person: p, choices: choices))
                        }
                    }
                }
            }
        }
        return out
    }

    /// A random sequence of `maxLength`/2…`maxLength` steps, drawn with an abstract model of what it has done so far
    /// (``ExploreModel``). A sequence with no installation registers one; one with fewer than it may have registers
    /// another one time in three; otherwise an operation that can come next, as likely as its weight says times how
    /// much its steps use what the sequence built, then one of its steps (devices, person, values), as likely as
    /// what it uses says. A change is followed, one time in two, by a read that can show it: a push by a read of
    /// pushes on some device, a device's change by a read of that device (half the time) or of any device or
    /// person (a sibling device, the person it left), again drawn by what each read would show.
    func draw(_ random: inout SeededRandom) -> ExploreSequence {
        var sequence = ExploreSequence([])
        var model = ExploreModel()
        func append(_ step: ExploreStep) {
            sequence.steps.append(step)
            model.apply(step, operations[step.operation])
        }
        let length = Int.random(in: max(1, maxLength / 2)...maxLength, using: &random)
        while sequence.steps.count < length {
            let options = candidates(after: sequence)
            guard !options.isEmpty else { break }
            let (registered, alive, _) = universe(of: sequence)
            let registrations = options.filter { operations[$0.operation].registers != nil }
            let others = options.filter { operations[$0.operation].registers == nil }
            let register =
                !registrations.isEmpty
                && (alive.isEmpty || others.isEmpty
                    || (registered < devices && Int.random(in: 0..<3, using: &random) == 0))
            let step = pick(register ? registrations : others, model, &random)
            append(step)
            let op = operations[step.operation]
            // A read that also changes something (a sync reporting deliveries) is a change too.
            guard !op.reads || op.effect != nil, op.registers == nil, sequence.steps.count < length,
                Bool.random(using: &random)
            else { continue }
            // A push, or a report of messages a sync handed out, shows in a later sync.
            let showsPushes = op.slots.contains(.text) || op.parameters.contains { $0.captured != nil }
            // A change shows on the device it acts on, or on what shares its person: half the time a read of
            // that device, else any read of a device or a person.
            let sameDevice = Bool.random(using: &random)
            let reads = candidates(after: sequence).filter { next in
                let read = operations[next.operation]
                guard read.reads else { return false }
                let readsPushes = read.observations.contains { if case .texts = $0 { true } else { false } }
                if showsPushes { return readsPushes }
                guard !readsPushes else { return false }
                return !sameDevice || (read.slots.contains(.device) && next.device == step.device)
            }
            if !reads.isEmpty { append(pick(reads, model, &random)) }
        }
        return sequence
    }

    /// An operation among `options`, as likely as its weight times the largest factor of its steps, then one of its
    /// steps as likely as its factor, `1 + focus × uses` (``ExploreModel/uses(_:_:)``). A step that uses nothing
    /// keeps the factor 1, never 0, so nothing the profile offers becomes impossible to draw.
    private func pick(_ options: [ExploreStep], _ model: ExploreModel, _ random: inout SeededRandom) -> ExploreStep {
        let byOperation = Dictionary(grouping: options, by: \.operation)
        let keys = byOperation.keys.sorted()
        var weights: [Int: [Double]] = [:]
        var totals: [Double] = []
        for key in keys {
            let op = operations[key]
            let steps = byOperation[key]!
            let each = steps.map { 1 + Double(focus * model.uses($0, op)) }
            weights[key] = each
            totals.append(op.weight * (each.max() ?? 1))
        }
        let chosen = keys[Self.index(totals, &random)]
        return byOperation[chosen]![Self.index(weights[chosen]!, &random)]
    }

    /// An index of `weights`, each as likely as its weight.
    private static func index(_ weights: [Double], _ random: inout SeededRandom) -> Int {
        var draw = Double.random(in: 0..<weights.reduce(0, +), using: &random)
        for (i, weight) in weights.enumerated() {
            draw -= weight
            if draw < 0 { return i }
        }
        return weights.count - 1
    }

    private func universe(of sequence: ExploreSequence) -> (registered: Int, alive: [Int], persons: Int) {
        var registered = 0
        var retired: Set<Int> = []
        var persons = 0
        for step in sequence.steps {
            let op = operations[step.operation]
            if op.registers != nil { registered += 1 }
            if op.retires { retired.insert(step.device) }
            if op.slots.contains(.person) { persons = max(persons, step.person + 1) }
        }
        return (registered, (0..<registered).filter { !retired.contains($0) }, persons)
    }

    private func combinations(_ values: [[Int]]) -> [[Int]] {
        values.reduce([[]]) { partial, options in partial.flatMap { prefix in options.map { prefix + [$0] } } }
    }
}
