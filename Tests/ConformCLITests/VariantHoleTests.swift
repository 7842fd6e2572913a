import ConformCore
import ConformReference
import ConformReport
import ConformRunner
import Foundation
import Testing

/// The two holes a variant used to hide, pinned on their own so they are found without the whole variant matrix:
/// a backend that answers a repeated depersonalize with another 2xx, or a push reaching nobody with another status,
/// must still be told apart from one that refuses the call.
@Suite("Variant holes")
struct VariantHoleTests {
    /// One run of every bundled suite under `variants`, with `faults`.
    static func run(_ variants: Set<ReferenceVariant>, _ faults: Set<ReferenceFault> = []) async throws -> RunResult {
        await SuitesBundle.runInProcess(try SuitesBundle.load(), faults: faults, variants: variants)
    }

    /// The suites whose verdict is *assumption not met*.
    static func unmet(_ result: RunResult) -> [String] {
        result.suites.filter { $0.verdict == .assumptionNotMet }.map(\.group.id)
    }

    /// 204 for every void call conforms with nothing unmet, so a refused repeat stands out.
    @Test func noContentDoesNotHideARefusedRepeatDepersonalize() async throws {
        let clean = try await Self.run([.noContent])
        #expect(clean.exitCode == 0, Comment(rawValue: SuitesBundle.problems(in: clean)))
        #expect(Self.unmet(clean).isEmpty, Comment(rawValue: SuitesBundle.problems(in: clean)))
        let faulty = try await Self.run([.noContent], [.repeatedDepersonalizeRefused])
        #expect(Self.unmet(faulty) == ["logout"], Comment(rawValue: SuitesBundle.problems(in: faulty)))
    }

    /// Other pending statuses conform with nothing unmet, so a refused primary-only push to nobody stands out.
    @Test func otherPushStatusesDoNotHideARefusedPrimaryOnlyPush() async throws {
        let clean = try await Self.run([.otherPushStatuses])
        #expect(clean.exitCode == 0, Comment(rawValue: SuitesBundle.problems(in: clean)))
        #expect(Self.unmet(clean).isEmpty, Comment(rawValue: SuitesBundle.problems(in: clean)))
        let faulty = try await Self.run([.otherPushStatuses], [.primaryOnlyWithoutPrimaryRefused])
        #expect(Self.unmet(faulty) == ["primary-switch"], Comment(rawValue: SuitesBundle.problems(in: faulty)))
    }

    /// Under every variant at once (other assumed answers included: 204 on a repeat, 202 for a push to nobody) both
    /// refusals break an assumed fact the variants alone keep.
    @Test func allVariantsHideNeitherRefusal() async throws {
        let all = Set(ReferenceVariant.allCases)
        let clean = FaultsMatrix.assumedFindings(try await Self.run(all))
        for fault in [ReferenceFault.repeatedDepersonalizeRefused, .primaryOnlyWithoutPrimaryRefused] {
            let faulty = FaultsMatrix.assumedFindings(try await Self.run(all, [fault]))
            #expect(!faulty.isSubset(of: clean), "\(fault.rawValue): \(faulty.subtracting(clean).sorted())")
        }
    }
}
