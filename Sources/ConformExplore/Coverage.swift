import ConformCore
import ConformReference

/// One cell of the model's coverage: an operation in an abstract state of what it acts on, as the reference saw it
/// before the operation: the device (`anonymous`, `personalized`, `primary`) or the person (`no device`,
/// `devices`, `primary device`); a registration has the one state `new`.
struct CoverageCell: Sendable, Hashable, Comparable {
    var operation: String
    var state: String

    static let deviceStates = ["anonymous", "personalized", "primary"]
    static let personStates = ["no device", "devices", "primary device"]

    static func < (lhs: CoverageCell, rhs: CoverageCell) -> Bool {
        (lhs.operation, lhs.state) < (rhs.operation, rhs.state)
    }

    /// The states an operation can meet.
    static func states(of op: ExploreOperation) -> [String] {
        if op.registers != nil { return ["new"] }
        return op.slots.contains(.device) ? deviceStates : personStates
    }

    static func of(
        _ op: ExploreOperation, step: ExploreStep, names: [String: String], before: ReferenceSnapshot
    ) -> CoverageCell {
        if op.registers != nil { return CoverageCell(operation: op.name, state: "new") }
        if op.slots.contains(.device) {
            let id = names["d\(step.device + 1)"] ?? ""
            let person = before.person(holding: id)
            let state =
                before.installation(id)?.isPrimary == true
                ? "primary" : person?.externalUserId == nil ? "anonymous" : "personalized"
            return CoverageCell(operation: op.name, state: state)
        }
        let person = names["p\(step.person + 1)"].flatMap { before.person(externalUserId: $0) }
        let devices = person?.installations ?? []
        let state = devices.isEmpty ? "no device" : devices.contains(where: \.isPrimary) ? "primary device" : "devices"
        return CoverageCell(operation: op.name, state: state)
    }
}

/// Which cells the explored sequences reached, out of every cell of the profile's operations.
public struct ExploreCoverage: Sendable, Hashable {
    var reached: Set<CoverageCell> = []
    var all: [CoverageCell]

    init(operations: [ExploreOperation]) {
        var cells: [CoverageCell] = []
        for op in operations {
            for state in CoverageCell.states(of: op)
            where !cells.contains(CoverageCell(operation: op.name, state: state)) {
                cells.append(CoverageCell(operation: op.name, state: state))
            }
        }
        all = cells
    }

    /// How many cells were reached.
    public var exercised: Int { reached.intersection(all).count }
    /// How many cells the model has.
    public var total: Int { all.count }

    /// The cells not reached, as `operation in state`.
    public var missing: [String] {
        all.filter { !reached.contains($0) }.map { "\($0.operation) in \($0.state)" }
    }

    /// `41 of 54 operation × state cells`.
    public var line: String { "\(exercised) of \(total) operation × state cells" }
}
