import ConformBundles
import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformTestSupport
import Foundation
import Synchronization
import Testing

/// `run --bundle`'s library side: a bundle whose suite changed during the run is not sealed, and the run's verdict
/// is held back from the console until the bundle is.
@Suite struct RunBundleTests {
    /// A suite changed while the run went on: the bundle is refused (no manifest written), naming the suite file.
    @Test func aSuiteChangedDuringTheRunIsNotSealed() async throws {
        let scratch = try Scratch("bundle-changed")
        let file = scratch.path("01-registration.yaml")
        let original = try Data(
            contentsOf: TestPaths.root.appendingPathComponent("suites/01-registration.yaml"))
        try original.write(to: URL(fileURLWithPath: file))
        let loaded = LoadedSuites(names: [file], profile: .mobileMessaging) { FileManager.default.contents(atPath: $0) }
        try #require(loaded.notRun == nil && loaded.suites.count == 1)
        let run = SuiteRun(
            suites: loaded.suites, targetDefaults: ProtocolProfile.mobileMessaging.referenceBaseURLs,
            targetDescription: "reference", profile: .mobileMessaging)
        let written = BundleVerifierTests.Written()
        let directory = scratch.path("bundle")
        let bundle = try #require(
            RunBundle.open(directory, shown: "bundle", kit: BundleVerifierTests.kit, output: written.console))
        try (original + Data("# changed\n".utf8)).write(to: URL(fileURLWithPath: file))
        let sealed = bundle.finish(
            plan: run.plan, planSuites: loaded.suites, selection: RunSelection(), shard: nil,
            credentials: run.credentials, product: nil, resolve: { $0 }, output: written.console)
        #expect(!sealed)
        let reported = written.diagnostics.withLock { $0 }
        #expect(reported.map(\.id) == [.bundleInvalid])
        #expect(reported.first?.message == "\(file): changed while the run went on")
        #expect(!FileManager.default.fileExists(atPath: directory + "/" + BundleManifest.fileName))
        #expect(written.err.text.isEmpty)
    }

    /// The summary (the verdict) reaches the console only on release, once; every other event at once.
    @Test func theVerdictIsHeldUntilReleased() {
        let sink = MemorySink()
        let held = HeldSummary(ConsoleReporter(sink: sink))
        let result = RunResult(command: .run, suites: [], duration: 0, target: "reference")
        held.handle(.runStarted(RunPlanSummary(suiteCount: 0, stepCount: 0, target: "reference")))
        let started = sink.text
        #expect(started.hasPrefix("Conform: 0 suites, 0 steps against reference"))
        held.handle(.runFinished(result))
        #expect(sink.text == started)
        held.release()
        let summary = String(sink.text.dropFirst(started.count))
        let direct = MemorySink()
        ConsoleReporter(sink: direct).handle(.runFinished(result))
        #expect(!summary.isEmpty && summary == direct.text)
        held.release()
        #expect(sink.text == started + summary)
    }
}
