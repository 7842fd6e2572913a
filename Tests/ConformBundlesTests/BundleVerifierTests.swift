import ConformBundles
import ConformCore
import ConformDiagnostics
import ConformMobileMessaging
import ConformReference
import ConformReport
import ConformRunner
import ConformTestSupport
import Foundation
import Synchronization
import Testing

/// A bundle written by the library beside a run of one suite against the embedded reference, then verified by the
/// library's ``BundleVerifier``: as written it verifies, with its verdict line and exit status from one
/// verification; with one byte of a report changed it is TAMPERED, naming the file and both digests.
@Suite struct BundleVerifierTests {
    /// What a bundle session writes: standard output, standard error and the diagnostics reported.
    final class Written: Sendable {
        let out = MemorySink()
        let err = MemorySink()
        let diagnostics = Mutex<[Diagnostic]>([])

        var console: BundleConsole {
            BundleConsole(out: out, err: err, report: { [self] d in diagnostics.withLock { $0.append(d) } })
        }
    }

    /// The kit of these tests: the repository's bundled suites, a version and commit of their own.
    static let kit = BundleKit(
        version: "0.0.0-test", commit: "test", profile: .mobileMessaging,
        bundledDirectory: TestPaths.root.appendingPathComponent("suites").path)

    /// Runs the bundled registration suite against the reference with a bundle written to `directory`.
    static func writeBundle(_ directory: String) async throws {
        let file = TestPaths.root.appendingPathComponent("suites/01-registration.yaml").path
        let loaded = LoadedSuites(names: [file], profile: .mobileMessaging) { FileManager.default.contents(atPath: $0) }
        try #require(loaded.notRun == nil && loaded.suites.count == 1)
        var run = SuiteRun(
            suites: loaded.suites, targetDefaults: ProtocolProfile.mobileMessaging.referenceBaseURLs,
            exchangeTimeout: .seconds(60), targetDescription: "reference", profile: .mobileMessaging)
        let written = Written()
        let bundle = try #require(RunBundle.open(directory, shown: "bundle", kit: kit, output: written.console))
        bundle.log.learn(credentials: run.credentials.values)
        run.plan.generatorSeed = bundle.seed
        let reference = ReferenceImplementation(configuration: .default, faults: [], variants: [])
        let session = run.session(
            console: nil, reports: bundle.reports,
            scope: kit.scope(selection: [], suites: loaded.suites, shard: .whole, failFast: false),
            provenance: run.provenance(commandLine: ["conform", "run"]))
        let outcome = await run.run(through: bundle.log.transport(around: reference), in: session)
        #expect(outcome.status == .conforms, "\(outcome.problems)")
        let finished = bundle.finish(
            plan: run.plan, planSuites: loaded.suites, selection: RunSelection(), shard: nil,
            credentials: run.credentials, product: nil, resolve: { $0 }, output: written.console)
        #expect(finished, "\(written.diagnostics.withLock { $0 })")
        #expect(written.err.text.hasPrefix("Bundle: bundle ("), "\(written.err.text)")
    }

    static func verify(_ directory: String, allowPartial: Bool) async throws -> (RunStatus, Written) {
        let written = Written()
        let verifier = BundleVerifier(
            directory: directory, shown: "bundle", kit: kit, allowPartial: allowPartial, console: nil,
            output: written.console)
        return (try await verifier.run(), written)
    }

    /// The partial reason of a run of one of the 24 bundled suites.
    static let partial = "VERIFIED partial (1 of 24 bundled suites), CONFORMS, unsigned"

    @Test func aBundleAsWrittenVerifiesWithItsOneVerdict() async throws {
        let scratch = try Scratch("bundle-good")
        let directory = scratch.path("bundle")
        try await Self.writeBundle(directory)
        let (accepted, said) = try await Self.verify(directory, allowPartial: true)
        #expect(said.out.text == "Verification: \(Self.partial); accepted with --allow-partial\n")
        #expect(accepted == .conforms)
        #expect(said.diagnostics.withLock { $0 }.isEmpty)
        // The same bundle without --allow-partial: intact, but no certificate; its status is the line's.
        let (refused, line) = try await Self.verify(directory, allowPartial: false)
        #expect(
            line.out.text
                == "Verification: \(Self.partial); no certificate: that is a whole run of the bundled plan with every "
                + "step run (pass --allow-partial to accept a partial one)\n")
        #expect(refused == .mismatch)
    }

    @Test func aReportChangedAfterTheRunIsTampered() async throws {
        let scratch = try Scratch("bundle-tampered")
        let directory = scratch.path("bundle")
        try await Self.writeBundle(directory)
        let listed = try #require(
            BundleManifest.check(directory: directory).entries.first { $0.path == CertificationBundle.jsonReport })
        let path = (directory as NSString).appendingPathComponent(CertificationBundle.jsonReport)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let at = try #require(bytes.firstIndex(of: UInt8(ascii: "{")))
        bytes.insert(UInt8(ascii: " "), at: at)
        try bytes.write(to: URL(fileURLWithPath: path))
        let changed = try BundleManifest.digest(CertificationBundle.jsonReport, in: directory)
        let (status, said) = try await Self.verify(directory, allowPartial: true)
        #expect(status == .cannotRun)
        #expect(
            said.out.text
                == "Verification: TAMPERED (the bundle is incomplete, changed or holds what a bundle does not)\n")
        let reported = said.diagnostics.withLock { $0 }
        #expect(reported.map(\.id) == [.bundleInvalid])
        #expect(
            reported.first?.message
                == "report.json: the file (or the manifest) was changed: its SHA-256 is \(changed), the manifest says \(listed.sha256)"
        )
    }

    @Test func aShardNamedOtherwiseThanKOfNIsSaidWhy() {
        #expect(throws: Shard.SyntaxError(message: "--shard: K must be 1 to N (2), got '3/2'")) {
            try Shard.parse("3/2")
        }
        #expect((try? Shard.parse("2/4")) == Shard(index: 2, count: 4))
    }
}
