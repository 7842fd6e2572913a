import ConformReference
import ConformTestSupport
import Foundation
import Testing

/// `conform explore` run as a user runs it (the built binary): a fixed seed against the builtin reference finds
/// nothing, a fault of the reference is found and shrunk to a suite that `conform run` replays (failing on the
/// fault, passing on the reference), every conforming variant finds nothing, and a target that cannot answer could
/// not run. Budgets are small so the tests stay fast; each budget is the one the test states.
@Suite struct ExploreCommandTests {
    let binary = BinaryTests()

    /// The budget of the fault tests here: sequences drawn from seed 11 (the budget docs/explore.md states).
    static let faultBudget = ExploreFaultsTests.budget
    /// The budget of every variant test, smaller because `latency` (alone and in `all`) answers 150 ms late.
    static let variantBudget = "12"

    @Test func aFixedSeedAgainstTheReferenceFindsNothing() async throws {
        let run = try await binary.conform(["explore", "--seed", "7", "--budget", "20", "--no-color"])
        #expect(run.code == 0, "explore printed:\n\(run.out)\(run.err)")
        let lines = run.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "Exploring the embedded reference implementation with seed 7 (budget 20 sequences).")
        #expect(lines.contains("Result: NO DIVERGENCE FOUND"))
        #expect(
            lines.contains(
                "Seed 7; budget 20 sequences; random sequences of up to 12 operations over 3 installations and 2 persons, application 'all'."
            ))
        #expect(lines.contains { $0.hasPrefix("Explored 20 behaviours (") })
        #expect(lines.contains { $0.hasPrefix("Coverage: ") && $0.hasSuffix(" operation × state cells.") })
        #expect(!run.out.contains("certif"))
        // The same seed draws the same sequences: the same operations are counted.
        let again = try await binary.conform(["explore", "--seed", "7", "--budget", "20", "--no-color"])
        let count = { (out: String) in
            out.split(separator: "\n").first { $0.hasPrefix("Explored ") }.map { String($0.prefix { $0 != "i" }) }
        }
        #expect(count(again.out) == count(run.out))
    }

    /// A fault found is shrunk to a suite kept in `--out`, which the next exploration replays first. (Every fault
    /// of the reference within the stated budget: `ExploreFaultsTests`.)
    @Test func aFaultFoundIsKeptAndReplayedFirst() async throws {
        let fault = "depersonalizeNoop"
        let out = try Scratch("explore-\(fault)")
        let run = try await binary.conform([
            "explore", "--fault", fault, "--seed", "11", "--budget", Self.faultBudget, "--window", "50ms", "--out",
            out.url.path, "--no-color",
        ])
        let path = try await binary.expectShrunkSuite(run, fault: fault, seed: "11", out: out.url.path)
        // Kept failures are replayed first on the next exploration.
        let next = try await binary.conform([
            "explore", "--fault", fault, "--seed", "12", "--budget", "1", "--out", out.url.path, "--window", "50ms",
            "--no-color",
        ])
        #expect(next.code == 1)
        #expect(next.out.contains("A suite kept from an earlier exploration still diverges: \(path)"))
    }

    /// Every variant the reference has, each alone, and all of them at once.
    static let variants = ReferenceVariant.allCases.map(\.rawValue) + ["all"]

    @Test(arguments: variants)
    func aConformingVariantFindsNothing(_ variant: String) async throws {
        let run = try await binary.conform([
            "explore", "--variant", variant, "--seed", "11", "--budget", Self.variantBudget, "--window", "3s",
            "--no-color",
        ])
        #expect(run.code == 0, "explore --variant \(variant) printed:\n\(run.out)\(run.err)")
        #expect(run.out.contains("Result: NO DIVERGENCE FOUND"))
    }

    /// An application mode is explored with its own credentials, and the shrunk suite names the mode as its
    /// profile: the restricted profile's refusal of a mobile personalize (D8) is found and replayed.
    @Test func anApplicationModeIsExploredAndNamedInTheSuite() async throws {
        let out = try Scratch("explore-restricted")
        let run = try await binary.conform([
            "explore", "--application", "restricted", "--fault", "restrictedNotEnforced", "--seed", "3", "--budget",
            "40", "--window", "50ms", "--out", out.url.path, "--no-color",
        ])
        #expect(run.code == 1, "explore printed:\n\(run.out)\(run.err)")
        let line = try #require(run.out.split(separator: "\n").first { $0.hasPrefix("Shrunk suite: ") })
        let path = String(line.dropFirst("Shrunk suite: ".count).prefix { $0 != " " })
        #expect(path.hasPrefix(out.path("explore-seed3-")))
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("\nprofile: restricted\n"))
        #expect(try await binary.conform(["run", path, "--fault", "restrictedNotEnforced"]).code == 1)
        #expect(try await binary.conform(["run", path]).code == 0)
        // Every mode explores the reference without a divergence.
        for mode in ["jwt", "restricted-access"] {
            let clean = try await binary.conform([
                "explore", "--application", mode, "--seed", "3", "--budget", "40", "--no-color",
            ])
            #expect(clean.code == 0, "explore --application \(mode) printed:\n\(clean.out)\(clean.err)")
        }
    }

    /// Over HTTP as in process: `conform serve` (loopback, port 0) explored clean finds nothing, and with a fault
    /// the shrunk suite fails against that server and passes on the embedded reference. The servers are stopped
    /// when the test ends, passed or not.
    @Test func aServerOverHTTPIsExploredAsTheBuiltinOne() async throws {
        let scratch = try Scratch("explore-serve")
        let clean = try await offThePool {
            try ConformProcess(
                ["serve", "--port", "0"], scratch: scratch, banner: "Serving the reference implementation on ")
        }
        let faulty = try await offThePool {
            try ConformProcess(
                ["serve", "--port", "0", "--fault", "depersonalizeNoop"], scratch: scratch,
                banner: "Serving the reference implementation on ")
        }
        let nothing = try await binary.conform([
            "explore", "--target", clean.baseURL, "--seed", "7", "--budget", "20", "--no-color",
        ])
        #expect(nothing.code == 0, "explore over HTTP printed:\n\(nothing.out)\(nothing.err)")
        let found = try await binary.conform([
            "explore", "--target", faulty.baseURL, "--seed", "11", "--budget", Self.faultBudget, "--window", "50ms",
            "--out", scratch.path("out"), "--no-color",
        ])
        #expect(found.code == 1, "explore over HTTP printed:\n\(found.out)\(found.err)")
        let line = try #require(found.out.split(separator: "\n").first { $0.hasPrefix("Shrunk suite: ") })
        let path = String(line.dropFirst("Shrunk suite: ".count).prefix { $0 != " " })
        #expect(try await binary.conform(["run", path, "--target", faulty.baseURL]).code == 1)
        #expect(try await binary.conform(["run", path]).code == 0)
        _ = try await offThePool { try clean.interrupt() }
        _ = try await offThePool { try faulty.interrupt() }
    }

    /// A fault whose only effect differs where a decision assumes (D2: a personalize to another user without force
    /// is refused) is an assumption not met, never a failure.
    @Test func aDifferenceUnderAnAssumptionIsNotAFailure() async throws {
        let run = try await binary.conform([
            "explore", "--fault", "mergeOnDifferentUser", "--seed", "11", "--budget", "300", "--window", "50ms",
            "--no-color",
        ])
        #expect(run.code == 0, "explore printed:\n\(run.out)\(run.err)")
        #expect(run.out.contains(" differs where D2 only assumes; the rest of the sequence is not judged"))
        #expect(run.out.contains("Result: NO DIVERGENCE FOUND"))
    }

    @Test func theExhaustiveModeCountsItsBehaviours() async throws {
        let run = try await binary.conform([
            "explore", "--exhaustive", "--depth", "2", "--devices", "2", "--persons", "1", "--budget", "100000",
            "--seed", "1", "--no-color",
        ])
        #expect(run.code == 0, "explore --exhaustive printed:\n\(run.out)\(run.err)")
        #expect(run.out.contains("every sequence up to depth 2 (symmetry-reduced)"))
        let line = try #require(run.out.split(separator: "\n").first { $0.hasPrefix("Explored ") })
        #expect(line.hasPrefix("Explored 180 behaviours (360 operations)"), "\(line)")
    }

    @Test func aTargetThatCannotAnswerCouldNotRun() async throws {
        let run = try await binary.conform([
            "explore", "--target", "http://127.0.0.1:9", "--seed", "1", "--budget", "3", "--timeout", "2s",
            "--no-color",
        ])
        #expect(run.code == 2, "explore printed:\n\(run.out)\(run.err)")
        #expect(run.out.contains("Result: COULD NOT RUN"))
    }

    /// A target that answers 503 could not take the step: the exploration could not run, and names the answer;
    /// it is no divergence of the step after it.
    @Test func aTargetAnswering5xxCouldNotRunThatStep() async throws {
        let adapter =
            #"exec:while read -r line; do id=$(printf '%s' "$line" | sed -n 's/^{"id":\([0-9]*\).*/\1/p'); printf '{"id":%s,"status":503,"headers":[["Content-Type","application/json"]],"body":"{}"}\n' "$id"; done"#
        let run = try await binary.conform([
            "explore", "--target", adapter, "--seed", "1", "--budget", "3", "--no-color",
        ])
        #expect(run.code == 2, "explore printed:\n\(run.out)\(run.err)")
        #expect(run.out.contains("step 1: the target answered 503: it could not take the step"))
        #expect(run.out.contains("Result: COULD NOT RUN"))
        #expect(!run.out.contains("DIVERGES"))
    }

    /// `--var` sets the target's variables only: the reference keeps its own credentials, so an application code
    /// the target does not know shows as the target's refusal.
    @Test func variablesReachTheTargetOnly() async throws {
        let out = try Scratch("explore-var")
        let run = try await binary.conform([
            "explore", "--var", "appCode=not-an-app", "--seed", "1", "--budget", "2", "--window", "50ms", "--out",
            out.url.path, "--no-color",
        ])
        #expect(run.code == 1, "explore printed:\n\(run.out)\(run.err)")
        #expect(run.out.contains("expected: 2xx\n            actual:   401"))
    }

    /// A suite kept in `--out` that does not load stops the exploration before it starts, naming the file and
    /// the place.
    @Test func aBrokenSuiteKeptInOutCouldNotRun() async throws {
        let out = try Scratch("explore-broken")
        try Data("suite: x\nsteps: [\n".utf8).write(to: out.url.appendingPathComponent("bad.yaml"))
        let run = try await binary.conform([
            "explore", "--out", out.url.path, "--seed", "1", "--budget", "2", "--no-color",
        ])
        #expect(run.code == 2, "explore printed:\n\(run.out)\(run.err)")
        #expect(run.out.contains("\(out.url.path)/bad.yaml:3:1: error: did not find expected node content"))
        #expect(run.out.contains("fix or remove them, or give --out another directory"))
    }

    @Test func usageErrors() async throws {
        let budget = try await binary.conform(["explore", "--budget", "0"])
        #expect(budget.code == 64)
        #expect(
            budget.err.contains("--budget takes a number of sequences (1 to 1000000) or a time from 1s to 24h, got '0'")
        )
        let depth = try await binary.conform(["explore", "--depth", "2"])
        #expect(depth.code == 64)
        #expect(depth.err.contains("--depth is the depth of --exhaustive; give --exhaustive too"))
    }
}
