import ConformCLI
import ConformTestSupport
import Foundation
import Testing

/// Replays and diffs against long-lived targets: `conform serve` processes started here on port 0 and stopped with
/// SIGINT, which keep every person a replay made.
@Suite struct LongLivedTargetTests {
    static let sample = TrafficCommandTests.sample
    static let noise = TrafficCommandTests.sampleNoise

    func served(_ scratch: Scratch) async throws -> ConformProcess {
        try await offThePool {
            try ConformProcess(
                ["serve", "--port", "0"], scratch: scratch, banner: "Serving the reference implementation on ")
        }
    }

    func replay(_ target: String, _ extra: [String] = []) async -> (code: Int32, out: String, err: String) {
        await conformInProcess(["replay", Self.sample, "--target", target, "--noise", Self.noise] + extra)
    }

    @Test func theSameRecordingReplaysAgainAgainstOneTargetWithFreshIdentities() async throws {
        let scratch = try Scratch()
        let child = try await served(scratch)
        defer { _ = try? child.interrupt() }

        let first = await replay(child.baseURL)
        #expect(first.code == 0, "\(first.out)\(first.err)")
        #expect(first.out.contains("Result: SAME BEHAVIOUR"), "\(first.out)")

        // The recorded persons now own the first replay's devices: the second replay sees one device too many.
        let second = await replay(child.baseURL)
        #expect(second.code == 1, "\(second.out)\(second.err)")
        #expect(second.out.contains("Result: DIFFERENT BEHAVIOUR"), "\(second.out)")
        #expect(second.out.contains("differs $.contactInformation.push[1]"), "\(second.out)")
        #expect(
            second.out.contains(
                "note:     looks like state an earlier replay left on the target (its persons already exist): "
                    + "replay with --fresh-identities"), "\(second.out)")
        #expect(
            second.out.contains(
                "1 exchange differed as if an earlier replay had left its persons on the target\n"
                    + "help: replay with --fresh-identities\n"), "\(second.out)")

        // Persons of their own, twice: each run is the recording's behaviour again.
        for prefix in ["", "=run-2"] {
            let fresh = await replay(child.baseURL, ["--fresh-identities\(prefix)"])
            #expect(fresh.code == 0, "\(fresh.out)\(fresh.err)")
            #expect(fresh.out.contains("16 matched, 0 differed"), "\(fresh.out)")
            #expect(fresh.out.contains("Result: SAME BEHAVIOUR"), "\(fresh.out)")
            #expect(!fresh.out.contains("--fresh-identities"), "no hint once identities are fresh: \(fresh.out)")
        }
        let named = await replay(child.baseURL, ["--fresh-identities=run-3"])
        #expect(named.out.contains("Fresh identities: prefix run-3\n"), "\(named.out)")
        // The same prefix again is the same persons again: their state is left over, as the prefix was reused.
        let reused = await replay(child.baseURL, ["--fresh-identities=run-3"])
        #expect(reused.code == 1, "\(reused.out)")
    }

    @Test func aPrefixThatIsNotLettersDigitsOrHyphensIsAUsageError() async {
        let run = await replay("http://127.0.0.1:9", ["--fresh-identities=a b"])
        #expect(run.code == 64)
        #expect(
            run.err.hasPrefix("Error: --fresh-identities takes a PREFIX of 1 to 32 letters, digits or '-', got 'a b'"),
            "\(run.err)")
    }

    @Test func twoServedReferencesOnDifferentPortsDiffWithNoDifference() async throws {
        let scratch = try Scratch()
        let a = try await served(scratch)
        defer { _ = try? a.interrupt() }
        let b = try await served(scratch)
        defer { _ = try? b.interrupt() }
        #expect(a.baseURL != b.baseURL)
        // M12's baseUrl names each server's own origin (suite 01); every synced push its own send time (suite 08).
        let inputs = [Self.sample, "suites/01-registration-lifecycle.yaml", "suites/08-message-reports.yaml"]
        let run = await conformInProcess(["diff", "--target", a.baseURL, "--target", b.baseURL] + inputs)
        #expect(run.code == 0, "\(run.out)\(run.err)")
        #expect(run.out.contains("\(Self.sample): 16 exchanges, 16 the same, 0 different"), "\(run.out)")
        #expect(run.out.contains("Result: the two implementations behave the same"), "\(run.out)")

        // Without the documented noise, the send times are what differs, and the count reads as English.
        let raw = await conformInProcess(
            ["diff", "--no-default-noise", "--target", a.baseURL, "--target", b.baseURL, inputs[2]])
        #expect(raw.code == 1, "\(raw.out)")
        #expect(raw.out.contains("differs $.payloads[0].internalData.sendDateTime"), "\(raw.out)")
        #expect(!raw.out.contains("differs $.baseUrl"), "\(raw.out)")
        let one = raw.out.range(of: #"Result: 1 of [0-9]+ exchanges? differs\n"#, options: .regularExpression) != nil
        let many =
            raw.out.range(of: #"Result: ([2-9]|[1-9][0-9]+) of [0-9]+ exchanges differ\n"#, options: .regularExpression)
            != nil
        #expect(one || many, "\(raw.out)")
    }
}
