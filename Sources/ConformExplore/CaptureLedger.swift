import ConformCore

/// The values a sequence's steps capture (``ExploreCapture``), in order: each one a variable of the written suite
/// (`received1`, `received2`…, numbered across the sequence), kept by installation and by what it captures, so
/// that a later step's captured parameter names one of its own installation's, the newest first. Each side of a
/// play (reference, target) fills the variables with the ids it minted itself, as it does for devices.
struct CaptureLedger: Sendable {
    private var variables: [Int: [String: [String]]] = [:]
    /// How many captures the sequence made so far.
    private(set) var count = 0

    /// How many values of `capture` installation `device` captured so far.
    func available(_ capture: String, device: Int) -> Int { variables[device]?[capture]?.count ?? 0 }

    /// The variable of the `newest`-th newest value of `capture` on `device` (0: the newest); `nil` when the
    /// installation captured fewer.
    func variable(_ capture: String, device: Int, newest: Int) -> String? {
        guard let list = variables[device]?[capture], newest >= 0, newest < list.count else { return nil }
        return list[list.count - 1 - newest]
    }

    /// The variable each captured parameter of `step` names, by parameter name; `nil` when one names a value the
    /// installation never captured (the step cannot be played).
    func arguments(of step: ExploreStep, _ op: ExploreOperation) -> [String: String]? {
        var out: [String: String] = [:]
        for (i, parameter) in op.parameters.enumerated() {
            guard let capture = parameter.captured else { continue }
            guard i < step.choices.count, let name = variable(capture, device: step.device, newest: step.choices[i])
            else { return nil }
            out[parameter.name] = name
        }
        return out
    }

    /// Records what `step` captures, returning its variable.
    @discardableResult
    mutating func record(_ step: ExploreStep, _ op: ExploreOperation) -> String? {
        guard let capture = op.captures else { return nil }
        count += 1
        let name = "\(capture.name)\(count)"
        variables[step.device, default: [:]][capture.name, default: []].append(name)
        return name
    }

    /// The ledger after every step of `steps`.
    static func after(_ steps: some Sequence<ExploreStep>, _ operations: [ExploreOperation]) -> CaptureLedger {
        var ledger = CaptureLedger()
        for step in steps { ledger.record(step, operations[step.operation]) }
        return ledger
    }
}
