import ConformCore
import ConformReference
import ConformReport
import ConformRunner
import Foundation
import Testing

/// However slow the implementation or the machine, a correct implementation conforms and a broken one does not.
/// Machine-wide: it computes on every core for minutes, so `scripts/test` runs it after the other tests.
@Suite("Slow implementations")
struct SlowImplementationTests {
    @Test(arguments: SlowCondition.allCases)
    func everyBundledSuiteConforms(_ condition: SlowCondition) async throws {
        let suites = try SuitesBundle.load()
        let result = try await condition.during { try await condition.run(suites) }
        #expect(result.exitCode == 0, Comment(rawValue: SuitesBundle.problems(in: result)))
        #expect(result.steps.allSatisfy { $0.verdict == .pass }, Comment(rawValue: SuitesBundle.problems(in: result)))
    }

    /// Each fault is run with the smallest suite that catches it at full speed, and must be caught the same way.
    @Test(arguments: SlowCondition.allCases)
    func everyFaultIsStillCaught(_ condition: SlowCondition) async throws {
        let suites = try SuitesBundle.load()
        let matrix = try await FaultsMatrixCache.shared.matrix()
        var cases: [(ReferenceFault, Suite)] = []
        for row in matrix.rows {
            let catching = row.failing.isEmpty ? row.assumptionNotMet : row.failing
            guard let smallest = suites.filter({ catching.contains($0.id) }).min(by: { $0.stepCount < $1.stepCount })
            else {
                Issue.record("fault \(row.fault.rawValue) is caught by no suite at full speed")
                continue
            }
            cases.append((row.fault, smallest))
        }
        // Slowed-down devices mostly wait, so many go at once; the busy machine's runs compute, so few do.
        let limit = condition == .busyMachine ? FaultsMatrix.runsAtOnce : 16
        let outcomes = try await condition.during {
            await boundedConcurrently(cases, limit: limit) { fault, suite in
                do {
                    let result = try await condition.run([suite], faults: [fault])
                    return (fault, suite.id, result.suites[0].verdict, SuitesBundle.problems(in: result))
                } catch {
                    return (fault, suite.id, Verdict.error, "could not run: \(error)")
                }
            }
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
