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

    /// Which suites catch a fault must not depend on how a suite's flows happen to interleave. A check that races a
    /// sibling flow catches its fault only in some runs: `multi-device` once caught `deliveryReportedForAllDevices`
    /// only when the iPad's report overtook the phone's sync. The flows of the suites that have several are run
    /// again with a random pause before each exchange, ``jitteredRounds`` times, and must be judged as in the
    /// matrix every time.
    @Test func everyFaultIsCaughtTheSameHoweverTheFlowsInterleave() async throws {
        let base = try await FaultsMatrixCache.shared.matrix()
        let suites = try SuitesBundle.load().filter { $0.flows.count > 1 }
        #expect(suites.count > 10, "the bundled suites with several flows")
        let ids = Set(suites.map(\.id))
        func judged(_ row: FaultsMatrix.Row) -> String {
            "fails \(row.failing.filter(ids.contains)), assumption not met \(row.assumptionNotMet.filter(ids.contains))"
        }
        for round in 1...Self.jitteredRounds {
            let jittered = await FaultsMatrix.compute(suites, jittered: true)
            #expect(jittered.clean.exitCode == 0, Comment(rawValue: SuitesBundle.problems(in: jittered.clean)))
            for (before, now) in zip(base.rows, jittered.rows) where judged(before) != judged(now) {
                let message =
                    "round \(round): \(now.fault.rawValue) \(judged(now)) with the flows interleaved another way, "
                    + "\(judged(before)) in the matrix"
                Issue.record(Comment(rawValue: message))
            }
        }
    }

    /// A round of the jittered matrix takes seconds (the suites with one flow are left out: nothing in them can
    /// interleave). Against the racing `multi-device`, the first round already judged it differently.
    static let jitteredRounds = 4

    @Test func docsShowTheCurrentMatrix() async throws {
        try DocsSection(name: "fault-matrix").check(try await FaultsMatrixCache.shared.matrix().markdown())
    }
}
