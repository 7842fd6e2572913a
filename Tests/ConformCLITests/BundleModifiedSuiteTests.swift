import ConformBundles
import ConformCore
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

@testable import ConformCLI

/// `verify` names a bundled suite that was weakened "modified", with its diff from the kit's suite, and refuses
/// the bundle as a certificate: a run made with the weakened suite is partial (exit 1, unless `--allow-partial`);
/// a suite weakened after the run with the manifest written again is not the suite the run judged with (TAMPERED).
@Suite(.serialized) struct BundleModifiedSuiteTests {
    /// The kit's login suite with the status check of its second step loosened.
    static func weakened() throws -> String {
        let text = try String(
            contentsOf: TestPaths.root.appendingPathComponent("suites/02-login.yaml"), encoding: .utf8)
        let strict = "      expect:\n        status: 200\n        headers: {Content-Type"
        try #require(text.contains(strict))
        return text.replacingOccurrences(
            of: strict, with: "      expect:\n        status: {$lt: 500}\n        headers: {Content-Type")
    }

    /// The diff `verify` shows: the kit's line 45 and the bundle's, two lines of context around them.
    static let diffLines = [
        "  @@ -43,5 +43,5 @@",
        "             userAttributes: {firstName: Ana, customAttributes: {plan: basic}}",
        "         expect:",
        "  -        status: 200",
        "  +        status: {$lt: 500}",
        "           headers: {Content-Type: {$regex: \"^application/json\"}}",
        "           json: {externalUserId: \"{{ firstUser }}\", firstName: Ana}",
    ].map { $0 + "\n" }.joined()

    @Test func aRunWithAWeakenedSuiteIsModifiedAndNoCertificate() async throws {
        let scratch = try Scratch("modified")
        let suite = scratch.path("02-login.yaml")
        try Self.weakened().write(toFile: suite, atomically: false, encoding: .utf8)
        let dir = scratch.path("bundle")
        let run = await conformInProcess(["run", "--bundle", dir, "--no-color", suite])
        #expect(run.code == 0, "\(run.out)\(run.err)")
        let verified = await conformInProcess(["verify", dir, "--no-color"])
        #expect(verified.code == 1, "\(verified.out)\(verified.err)")
        #expect(
            verified.err.contains(
                "Suites: modified: suites/001-02-login.yaml (suite login) differs from this kit's bundled suite "
                    + "02-login.yaml (2 lines differ):\n" + Self.diffLines), "\(verified.err)")
        #expect(
            verified.out.hasSuffix(
                "Verification: VERIFIED partial (1 suite modified from this kit's bundled suites: 02-login.yaml "
                    + "(suites/001-02-login.yaml); 0 of 24 bundled suites; 1 suite not bundled: \(suite)), CONFORMS, "
                    + "unsigned; no certificate: that is a whole run of the bundled plan with every step run (pass "
                    + "--allow-partial to accept a partial one)\n"), "\(verified.out)")
        // The report of the verification carries its verdict, the suite modified and its diff.
        let json = scratch.path("verified.json")
        let allowed = await conformInProcess([
            "verify", dir, "--allow-partial", "--no-color", "--report", "json:\(json)",
        ])
        #expect(allowed.code == 0, "\(allowed.out)")
        #expect(allowed.out.contains("1 suite modified from this kit's bundled suites"), "\(allowed.out)")
        let report = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: json)))
        let verification = try #require(report["verification"])
        #expect(verification["verdict"] == "VERIFIED partial")
        #expect(verification["acceptedPartial"] == true)
        #expect(verification["signature"] == ["state": "unsigned"])
        #expect(verification["modifiedSuites"]?[0]?["kitFile"] == "02-login.yaml")
        #expect(verification["modifiedSuites"]?[0]?["changedLines"] == 2)
        #expect(verification["modifiedSuites"]?[0]?["diff"]?[4] == "+        status: {$lt: 500}")
        #expect(verification["line"]?.stringValue == allowed.out.split(separator: "\n").last.map(String.init))
    }

    /// A forger who weakens the bundle's copy of a suite after the run and writes the manifest again: the diff is
    /// shown, and the suite is not the one the report's provenance names (TAMPERED, so `--allow-partial` cannot
    /// accept it).
    @Test func aSuiteWeakenedAfterTheRunIsNamedAndTampered() async throws {
        let scratch = try Scratch("modified")
        let dir = scratch.path("bundle")
        let run = await conformInProcess(["run", "--bundle", dir, "--no-color", "suites/02-login.yaml"])
        #expect(run.code == 0, "\(run.out)\(run.err)")
        try Self.weakened().write(toFile: dir + "/suites/001-02-login.yaml", atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: dir + "/" + BundleManifest.fileName)
        _ = try CertificationBundle.seal(dir)
        let verified = await conformInProcess(["verify", dir, "--allow-partial", "--no-color"])
        #expect(verified.code == 2, "\(verified.out)\(verified.err)")
        #expect(verified.err.contains("Suites: modified: suites/001-02-login.yaml (suite login)"), "\(verified.err)")
        #expect(verified.err.contains(Self.diffLines), "\(verified.err)")
        #expect(
            verified.err.contains(
                "error: suites/001-02-login.yaml: is not the suite the run judged with: its SHA-256 is "),
            "\(verified.err)")
        #expect(verified.out == "Verification: TAMPERED (a suite is not the one the run judged with)\n")
    }
}
