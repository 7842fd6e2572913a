import ConformCore
import ConformReference
import ConformReport
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

/// Machine-wide: it computes on every core for minutes, so `scripts/test` runs it after the other tests.
@Suite("Fault matrix")
struct FaultsMatrixTests {
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
    /// assumption not met: D2 (refusal without force), D5 (a repeated depersonalize accepted), D6 (primary
    /// exclusivity, by every route, and a device arriving at another person non-primary), D7 (no-destination
    /// status, a primary-only push to nobody accepted), D12 (message sync leaving reported messages out, a disabled
    /// registration not reached, a person's waiting pushes leaving with the device), D16 (a stranger device
    /// refused), D1 (when an identity conflict is refused is inferred).
    static let assumedDecisionFaults: Set<ReferenceFault> = [
        .mergeOnDifferentUser, .primaryNotExclusive, .noDestinationReportedAccepted, .syncResendsKnownMessages,
        .otherInstallationUnchecked, .mergeConflictsIgnored, .disabledRegistrationReached,
        .repeatedDepersonalizeRefused, .primaryOnlyWithoutPrimaryRefused, .primaryKeptAcrossPersons,
        .switchKeepsPendingPushes, .backendPersonalizePrimaryNotExclusive,
    ]

    @Test func docsShowTheCurrentMatrix() async throws {
        try DocsSection(name: "fault-matrix").check(try await FaultsMatrixCache.shared.matrix().markdown())
    }
}
