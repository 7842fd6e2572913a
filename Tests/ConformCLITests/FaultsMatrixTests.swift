import ConformCore
import ConformReference
import ConformRunner
import Foundation
import Testing

/// Computes the fault matrix once for every test that needs it.
actor FaultsMatrixCache {
    static let shared = FaultsMatrixCache()
    private var task: Task<FaultsMatrix, any Error>?

    func matrix() async throws -> FaultsMatrix {
        if let task { return try await task.value }
        let started = Task { await FaultsMatrix.compute(try SuitesBundle.load()) }
        task = started
        return try await started.value
    }
}

@Suite("Fault matrix")
struct FaultsMatrixTests {
    static let docsPath = SuitesBundle.root.appendingPathComponent("docs/suites.md")
    static let begin = "<!-- fault-matrix:begin -->\n"
    static let end = "<!-- fault-matrix:end -->"

    @Test func everyBundledSuiteLoads() throws {
        let suites = try SuitesBundle.load()
        #expect(Set(suites.map(\.step)).count == 8, "every flow step has a suite")
        #expect(Set(suites.map(\.id)).count == suites.count, "suite ids must be unique")
    }

    @Test func correctImplementationConforms() async throws {
        let clean = try await FaultsMatrixCache.shared.matrix().clean
        #expect(clean.exitCode == 0, Comment(rawValue: SuitesBundle.problems(in: clean)))
        #expect(clean.steps.allSatisfy { $0.verdict == .pass }, Comment(rawValue: SuitesBundle.problems(in: clean)))
    }

    @Test func everyFaultIsDetected() async throws {
        let matrix = try await FaultsMatrixCache.shared.matrix()
        for row in matrix.rows {
            #expect(row.detected, "fault \(row.fault.rawValue) is not noticed by any suite")
        }
    }

    @Test func faultsMissedByMustChecksAreOnlyThoseOfAssumedDecisions() async throws {
        let matrix = try await FaultsMatrixCache.shared.matrix()
        let onlyAssumed = Set(matrix.rows.filter { $0.failing.isEmpty }.map(\.fault))
        #expect(onlyAssumed == Self.assumedDecisionFaults, "faults detected only as assumption not met")
    }

    /// Faults that flip a behaviour `decisions.md` marks as assumed, so a suite may only report them as
    /// assumption not met: D2 (refusal without force), D6 (primary exclusivity), D7 (no-destination status),
    /// D12 (message sync leaving reported messages out), D16 (a stranger device refused).
    static let assumedDecisionFaults: Set<ReferenceFault> = [
        .mergeOnDifferentUser, .primaryNotExclusive, .noDestinationReportedAccepted, .syncResendsKnownMessages,
        .otherInstallationUnchecked,
    ]

    @Test func docsShowTheCurrentMatrix() async throws {
        let table = try await FaultsMatrixCache.shared.matrix().markdown()
        let text = try String(contentsOf: Self.docsPath, encoding: .utf8)
        guard let start = text.range(of: Self.begin),
            let stop = text.range(of: Self.end, range: start.upperBound..<text.endIndex)
        else {
            Issue.record("docs/suites.md has no '\(Self.begin.dropLast())' … '\(Self.end)' section")
            return
        }
        let current = String(text[start.upperBound..<stop.lowerBound])
        if ProcessInfo.processInfo.environment["CONFORM_RECORD_GOLDENS"] == "1" {
            let updated = text.replacingCharacters(in: start.upperBound..<stop.lowerBound, with: table)
            try updated.write(to: Self.docsPath, atomically: true, encoding: .utf8)
        } else {
            #expect(
                current == table,
                "docs/suites.md is out of date; run with CONFORM_RECORD_GOLDENS=1 to rewrite its matrix")
        }
    }
}
