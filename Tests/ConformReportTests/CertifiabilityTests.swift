import ConformCore
import ConformDiagnostics
import ConformReport
import ConformYAML
import Foundation
import Testing

/// Whether a suite run is certifiable or partial, and what it says about where it comes from: one model, the same
/// in every report, read back from JSON and added up by a merge.
@Suite struct CertifiabilityTests {
    /// A suite run of one suite whose steps have `verdicts`, with `scope`.
    static func run(_ verdicts: [Verdict], scope: RunScope?) -> RunResult {
        var result = CommandResultTests.result(.run, verdicts)
        result.scope = scope
        return result
    }

    static let whole = RunScope(bundledSuites: 22, bundledSuitesRun: 22)

    @Test func onlyTheWholeBundledPlanWithNothingSkippedOrUnrunIsCertifiable() {
        #expect(Self.run([.pass, .fail, .assumptionNotMet], scope: Self.whole).certifiability == .certifiable)
        #expect(Self.run([.pass], scope: nil).certifiability == nil)
        #expect(CommandResultTests.result(.replay, [.pass]).certifiability == nil)

        var selected = Self.whole
        selected.selection = ["--step 'log in from*'"]
        selected.bundledSuitesRun = 2
        #expect(
            Self.run([.pass], scope: selected).certifiability
                == .partial(["selection: --step 'log in from*'", "2 of 22 bundled suites"]))
        var other = Self.whole
        other.otherSuites = ["mine.yaml"]
        #expect(Self.run([.pass], scope: other).certifiability == .partial(["1 suite not bundled: mine.yaml"]))
        var shard = Self.whole
        shard.shard = Shard(index: 2, count: 3)!
        #expect(Self.run([.pass], scope: shard).certifiability == .partial(["shard 2/3 of the plan, not merged"]))
        var failFast = Self.whole
        failFast.failFast = true
        #expect(Self.run([.pass, .fail], scope: failFast).certifiability == .certifiable)
        #expect(
            Self.run([.fail, .skipped, .skipped], scope: failFast).certifiability
                == .partial(["stopped early by --fail-fast", "2 steps skipped"]))
        #expect(Self.run([.pass, .error], scope: Self.whole).certifiability == .partial(["1 step could not run"]))
        #expect(
            Self.run([.pass], scope: RunScope(bundledSuites: 0, bundledSuitesRun: 0)).certifiability
                == .partial(["the kit's bundled suites were not found"]))
    }

    static let provenance = RunProvenance(
        kitVersion: "0.1.0", kitCommit: "abc123", suitesDigest: String(repeating: "d", count: 64),
        suiteFiles: [.init(file: "suites/02-login.yaml", sha256: String(repeating: "e", count: 64))],
        commandLine: ["conform", "run", "--var", "appCode=••••"],
        variables: [
            .init(name: "appCode", value: "••••", masked: true), .init(name: "user", value: "u", masked: false),
        ],
        product: ProductIdentity(name: "Backend", version: "2.1", details: [("vendor", "ACME")]),
        startedAt: Date(timeIntervalSince1970: 1_700_000_000), finishedAt: Date(timeIntervalSince1970: 1_700_000_060))

    @Test func credentialsAreMaskedInTheVariablesAndTheCommandLine() {
        let masker = SecretMasker(secrets: ["sent-in-a-header-secret"])
        let shown = RunProvenance.shownVariables(
            [
                "appCode": "real-application-code-1234", "apiKey": "k", "userPrefix": "conform-",
                "other": "sent-in-a-header-secret", "publicCode": "conform-app-code",
            ], masker: masker, keep: ["conform-app-code"])
        #expect(
            shown == [
                .init(name: "apiKey", value: "••••", masked: true),
                .init(name: "appCode", value: "••••1234", masked: true),
                .init(name: "other", value: "••••cret", masked: true),
                .init(name: "publicCode", value: "conform-app-code", masked: false),
                .init(name: "userPrefix", value: "conform-", masked: false),
            ])
        let line = RunProvenance.shownCommandLine(
            ["conform", "run", "--var", "appCode=real-application-code-1234", "--var=apiKey=abc", "--var", "x=1"],
            masker: masker)
        #expect(line == ["conform", "run", "--var", "appCode=••••1234", "--var=apiKey=••••", "--var", "x=1"])
    }

    @Test func scopeAndProvenanceReadBackFromTheJSONReport() throws {
        var result = Self.run(
            [.pass, .skipped],
            scope: RunScope(
                selection: ["--tag 'smoke'"], bundledSuites: 22, bundledSuitesRun: 3, otherSuites: ["x.yaml"]))
        result.provenance = Self.provenance
        let text = JSONReporter(sink: MemorySink()).text(result)
        let json = try JSONValue.parse(Data(text.utf8))
        #expect(json["certification"] == "partial")
        #expect(
            json["partialReasons"]
                == [
                    "selection: --tag 'smoke'", "3 of 22 bundled suites", "1 suite not bundled: x.yaml",
                    "1 step skipped",
                ])
        #expect(json["provenance"]?["kit"]?["commit"] == "abc123")
        #expect(json["provenance"]?["product"] == ["name": "Backend", "version": "2.1", "vendor": "ACME"])
        #expect(json["provenance"]?["startedAt"] == "2023-11-14T22:13:20.000Z")
        let back = try RunReport.read(Data(text.utf8), source: "r.json")
        #expect(back.result.scope == result.scope)
        #expect(back.result.provenance == result.provenance)
        #expect(back.result.certifiability == result.certifiability)
    }

    @Test func mergingEveryShardGivesBackAWholeRun() throws {
        func shard(_ index: Int, bundledRun: Int) -> RunReport {
            var result = Self.run(
                [.pass],
                scope: RunScope(
                    bundledSuites: 2, bundledSuitesRun: bundledRun, shard: Shard(index: index, count: 2)!))
            result.provenance = Self.provenance
            return RunReport(
                result: result,
                placement: ShardPlacement(
                    shard: Shard(index: index, count: 2)!, planSuites: 2,
                    positions: [index - 1]), source: "shard-\(index).json")
        }
        #expect(
            shard(1, bundledRun: 1).result.certifiability
                == .partial(["1 of 2 bundled suites", "shard 1/2 of the plan, not merged"]))
        let merged = try RunReport.merge([shard(2, bundledRun: 1), shard(1, bundledRun: 1)])
        #expect(merged.result.scope == RunScope(bundledSuites: 2, bundledSuitesRun: 2))
        #expect(merged.result.certifiability == .certifiable)
        #expect(merged.result.provenance?.finishedAt == Self.provenance.finishedAt)
    }

    @Test func aProductFileIsReadWithEveryProblemAtItsPlace() throws {
        let good = "vendor: ACME\nname: Backend\nversion: \"2.1\"\nwebsite_url: https://acme.example\n"
        let product = try ProductIdentity.load(Array(good.utf8), file: "PRODUCT.yaml")
        #expect(product.name == "Backend" && product.version == "2.1")
        #expect(product.details.map(\.key) == ["vendor", "website_url"])
        #expect(try ProductIdentity.load(Array(product.fileText.utf8), file: "again.yaml") == product)

        let bad = "name: Backend\nversoin: 2\nvendor: \"ACME\\nInc\"\n"
        do {
            _ = try ProductIdentity.load(Array(bad.utf8), file: "PRODUCT.yaml")
            Issue.record("a bad product file was accepted")
        } catch {
            #expect(
                error.rendered(source: bad) == """
                    PRODUCT.yaml:1:1: error: the product file has no 'version'
                        1 | name: Backend
                          | ^
                    help: add 'version: …'
                    PRODUCT.yaml:2:1: error: unknown key 'versoin' in a product file
                        2 | versoin: 2
                          | ^
                    help: did you mean 'version'?
                    PRODUCT.yaml:3:9: error: 'vendor' spans several lines
                        3 | vendor: "ACME\\nInc"
                          |         ^
                    help: write it on one line
                    """)
        }
        let long = "name: \(String(repeating: "x", count: 257))\nversion: 1\n"
        #expect(throws: YAMLParseFailure.self) { try ProductIdentity.load(Array(long.utf8), file: "p.yaml") }
    }
}
