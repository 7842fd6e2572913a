import ConformCore
import ConformCurl
import ConformReference
import ConformReport
import ConformRunner
import ConformServer
import Foundation
import Testing

/// Computes the variant matrix once for every test that needs it.
actor VariantsMatrixCache {
    static let shared = VariantsMatrixCache()
    private var task: Task<VariantsMatrix, any Error>?

    func matrix() async throws -> VariantsMatrix {
        if let task { return try await task.value }
        let started = Task {
            let suites = try SuitesBundle.load()
            return await VariantsMatrix.compute(suites, base: try await FaultsMatrixCache.shared.matrix())
        }
        task = started
        return try await started.value
    }
}

/// The second duty of a certification kit: pass every correct implementation. The variants are behaviours a
/// production backend may have within the protocol and `decisions.md`.
/// Machine-wide: it computes on every core for minutes, so `scripts/test` runs it after the other tests.
@Suite("Variant matrix")
struct VariantsMatrixTests {
    @Test func everySuiteConformsUnderEveryVariantAndAllAtOnce() async throws {
        for row in try await VariantsMatrixCache.shared.matrix().rows {
            #expect(
                row.clean.exitCode == 0,
                "under \(row.name): \(SuitesBundle.problems(in: row.clean))")
            // Only assumed checks may differ, and only where a variant answers an assumed decision differently.
            let unmet = row.clean.steps.filter { $0.verdict == .assumptionNotMet }
            #expect(
                unmet.allSatisfy { $0.failures.allSatisfy { $0.severity == .assumed } },
                "under \(row.name)")
            if !row.variants.contains(.otherAssumedAnswers) {
                #expect(unmet.isEmpty, "under \(row.name): \(SuitesBundle.problems(in: row.clean))")
            }
        }
    }

    @Test func everyFaultIsCaughtAsBeforeUnderEveryVariant() async throws {
        let matrix = try await VariantsMatrixCache.shared.matrix()
        for row in matrix.rows {
            let differences = matrix.differences(row)
            #expect(differences.isEmpty, "under \(row.name): \(differences.joined(separator: "; "))")
        }
    }

    /// A fault caught only as an assumption stays caught under every variant: some assumed fact that holds under the
    /// variant without the fault is broken with it. A variant that misses one assumption (a 409 where 400 is assumed)
    /// must not hide a fault that misses another (a 200 where a refusal is assumed), which is why a suite assumes
    /// one fact per group.
    @Test func everyFaultCaughtOnlyAsAnAssumptionStaysCaughtUnderEveryVariant() async throws {
        let matrix = try await VariantsMatrixCache.shared.matrix()
        let onlyAssumed = matrix.base.rows.filter { $0.failing.isEmpty }.map(\.fault)
        #expect(!onlyAssumed.isEmpty)
        for fault in onlyAssumed {
            let base = try #require(matrix.base.rows.first { $0.fault == fault })
            #expect(matrix.base.caughtBeyondClean(base), "\(fault.rawValue) without a variant")
            for row in matrix.rows {
                let now = try #require(row.faults.rows.first { $0.fault == fault })
                #expect(
                    row.faults.caughtBeyondClean(now),
                    Comment(
                        rawValue: "\(fault.rawValue) under \(row.name) breaks no assumed fact the variant alone "
                            + "keeps: \(now.assumed.sorted().prefix(8).joined(separator: "; "))"))
            }
        }
    }

    @Test func docsShowTheCurrentMatrix() async throws {
        try DocsSection(name: "variant-matrix").check(try await VariantsMatrixCache.shared.matrix().markdown())
    }

    /// Against the synchronous reference, waiting for asynchronous effects costs nothing.
    @Test func theSynchronousReferenceIsNotSlowedDownByWindows() async throws {
        let clean = try await FaultsMatrixCache.shared.matrix().clean
        #expect(clean.exitCode == 0)
        let repeated = clean.steps.filter { $0.attempts > 1 }.map { "\($0.suiteID) › \($0.name)" }
        #expect(repeated.isEmpty, "steps that had to repeat against the synchronous reference: \(repeated)")
    }

    /// Over HTTP, where chunking, header case, closed connections, 204s and another JSON layout really happen on
    /// the wire.
    @Test(arguments: [
        [ReferenceVariant.chunked], [.headerCase], [.connectionClose], [.latency], [.noContent], [.otherJSONStyle],
        ReferenceVariant.allCases,
    ])
    func suitesConformOverHTTPUnder(_ variants: [ReferenceVariant]) async throws {
        let reference = ReferenceImplementation(configuration: .default, variants: Set(variants))
        var limits = HTTPServerLimits.default
        limits.threads = 32
        let result = try await SuitesBundle.runServed(reference, limits: limits)
        let name = variants.map(\.rawValue).joined(separator: ", ")
        #expect(result.exitCode == 0, "under \(name): \(SuitesBundle.problems(in: result))")
        #expect(result.steps.count > 100)
    }
}
