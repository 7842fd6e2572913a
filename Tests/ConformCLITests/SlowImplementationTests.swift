import ConformCore
import ConformReference
import ConformRunner
import Foundation
import Testing

/// However slow the implementation or the machine, a correct implementation conforms and a broken one does not.
@Suite("Slow implementations")
struct SlowImplementationTests {
    @Test(arguments: SlowCondition.allCases)
    func everyBundledSuiteConforms(_ condition: SlowCondition) async throws {
        let result = try await condition.run(try SuitesBundle.load())
        #expect(result.exitCode == 0, Comment(rawValue: SuitesBundle.problems(in: result)))
        #expect(result.steps.allSatisfy { $0.verdict == .pass }, Comment(rawValue: SuitesBundle.problems(in: result)))
    }

    /// Each fault is run with the smallest suite that catches it at full speed, and must be caught the same way.
    @Test(arguments: SlowCondition.allCases)
    func everyFaultIsStillCaught(_ condition: SlowCondition) async throws {
        let suites = try SuitesBundle.load()
        let matrix = try await FaultsMatrixCache.shared.matrix()
        let outcomes = try await withThrowingTaskGroup(of: (ReferenceFault, String, Verdict, String).self) { group in
            for row in matrix.rows {
                let catching = row.failing.isEmpty ? row.assumptionNotMet : row.failing
                let candidates = suites.filter { catching.contains($0.id) }
                guard let smallest = candidates.min(by: { $0.stepCount < $1.stepCount }) else {
                    Issue.record("fault \(row.fault.rawValue) is caught by no suite at full speed")
                    continue
                }
                group.addTask {
                    let result = try await condition.run([smallest], faults: [row.fault])
                    let verdict = result.suites[0].verdict
                    return (row.fault, smallest.id, verdict, SuitesBundle.problems(in: result))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for (fault, suite, verdict, problems) in outcomes {
            let row = try #require(matrix.rows.first { $0.fault == fault })
            if row.failing.isEmpty {
                #expect(verdict == .assumptionNotMet, "\(fault.rawValue) in \(suite): \(verdict)\n\(problems)")
            } else {
                #expect(
                    verdict == .fail || verdict == .error, "\(fault.rawValue) slipped through \(suite) \(condition)")
            }
        }
    }
}
