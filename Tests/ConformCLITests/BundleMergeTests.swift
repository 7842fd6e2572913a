import ConformBundles
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

/// `merge --bundle OUT SHARD…` joins the bundles of every shard of one run into one bundle that `verify` finds
/// certifiable; one shard alone is partial; a shard's bundle that was changed, a shard missing and a bundle of
/// another plan are refused, each named, and nothing is written.
@Suite(.serialized) struct BundleMergeTests {
    /// The bundles of the bundled plan run as 2 shards against the embedded reference.
    static func shardBundles(_ scratch: Scratch) async throws -> [String] {
        var dirs: [String] = []
        for k in 1...2 {
            let dir = scratch.path("shard\(k)")
            let run = await conformInProcess(["run", "--shard", "\(k)/2", "--bundle", dir, "--no-color"])
            try #require(run.code == 0, "\(run.out)\(run.err)")
            dirs.append(dir)
        }
        return dirs
    }

    @Test func theShardsMergedAreOneCertifiableBundleAndOneShardIsPartial() async throws {
        let scratch = try Scratch("merge-bundle")
        let shards = try await Self.shardBundles(scratch)
        let out = scratch.path("merged")
        let merged = await conformInProcess(
            ["merge", "--bundle", out, "--no-color", shards[1], shards[0]])
        #expect(merged.code == 0, "\(merged.out)\(merged.err)")
        for (k, dir) in shards.enumerated() {
            #expect(
                merged.err.contains(
                    "Shard \(k + 1)/2: \(dir): intact, judged again from its log, the same as its reports ("),
                "\(merged.err)")
        }
        #expect(merged.err.contains("Bundle: \(out) ("), "\(merged.err)")
        #expect(merged.err.contains("merged from 2 shards\n"), "\(merged.err)")
        #expect(merged.out.contains("Certification: certifiable"), "\(merged.out)")
        let files = try BundleManifest.check(directory: out).entries.map(\.path)
        for expected in [
            "bundle.json", "VERSION", "report.json", "report.xml", "report.html", "shards/1/bundle.json",
            "shards/1/log/exchanges.jsonl", "shards/2/log/meta.json", "suites/003-02-login.yaml",
        ] {
            #expect(files.contains(expected), "\(files)")
        }
        #expect(!files.contains("log/exchanges.jsonl"))

        let verified = await conformInProcess(["verify", out, "--no-color"])
        #expect(verified.code == 0, "\(verified.out)\(verified.err)")
        #expect(
            verified.err.contains("the same as each of the bundle's reports (JSON, JUnit, HTML) for all 354 steps"),
            "\(verified.err)")
        #expect(verified.out.hasSuffix("Verification: VERIFIED certifiable, CONFORMS, unsigned\n"), "\(verified.out)")

        let one = await conformInProcess(["verify", shards[0], "--no-color"])
        #expect(one.code == 1, "\(one.out)\(one.err)")
        #expect(one.out.contains("Verification: VERIFIED partial ("), "\(one.out)")
        #expect(one.out.contains("shard 1/2 of the plan, not merged"), "\(one.out)")

        // A merged bundle's shard file changed and the manifest written again: its shard is not judged the same.
        let info = out + "/shards/2/bundle.json"
        let text = try String(contentsOfFile: info, encoding: .utf8)
        try text.replacingOccurrences(of: "\"shard\": \"2/2\"", with: "\"shard\": \"1/2\"").write(
            toFile: info, atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: out + "/" + BundleManifest.fileName)
        _ = try CertificationBundle.seal(out)
        let changed = await conformInProcess(["verify", out, "--no-color"])
        #expect(changed.code == 2, "\(changed.out)\(changed.err)")
        #expect(changed.err.contains("shards/2/bundle.json: names shard '1/2'"), "\(changed.err)")
    }

    @Test func aChangedShardAMissingShardOrAnotherPlanIsRefused() async throws {
        let scratch = try Scratch("merge-bundle")
        let shards = try await Self.shardBundles(scratch)

        let copy = scratch.path("changed")
        try FileManager.default.copyItem(atPath: shards[1], toPath: copy)
        let log = copy + "/log/exchanges.jsonl"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: log)))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: log))
        let out = scratch.path("merged")
        let tampered = await conformInProcess(["merge", "--bundle", out, "--no-color", shards[0], copy])
        #expect(tampered.code == 2, "\(tampered.err)")
        #expect(
            tampered.err.contains(
                "\(copy)/log/exchanges.jsonl: error: the shard's bundle does not verify: the file (or the manifest) was changed"
            ), "\(tampered.err)")
        #expect(tampered.err.contains("Merge: refused; nothing was written to \(out)\n"))
        #expect(!FileManager.default.fileExists(atPath: out))

        let missing = await conformInProcess(["merge", "--bundle", out, "--no-color", shards[0]])
        #expect(missing.code == 2, "\(missing.err)")
        #expect(missing.err.contains("the reports lack shard 2/2"), "\(missing.err)")
        #expect(!FileManager.default.fileExists(atPath: out))

        let other = scratch.path("other")
        let run = await conformInProcess(["run", "--bundle", other, "--no-color", "suites/01-registration.yaml"])
        try #require(run.code == 0, "\(run.err)")
        let mixed = await conformInProcess(["merge", "--bundle", out, "--no-color", shards[0], other])
        #expect(mixed.code == 2, "\(mixed.err)")
        #expect(
            mixed.err.contains(
                "\(other): error: is not a shard of the same run as \(shards[0]): its suite files differ (1 and 24 files)"
            ), "\(mixed.err)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
