import ConformBundles
import ConformCLI
import ConformCore
import ConformReport
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

/// A partial run says so in every report, a whole run is certifiable, provenance is in every report with its
/// credentials masked, and `run --bundle` writes a bundle that `verify` accepts and refuses once any byte changes.
@Suite(.serialized) struct CertificationCommandTests {
    /// Runs `conform ARGS` in process and reads its three reports.
    func reports(_ args: [String]) async throws -> CommandReportsTests.Reports {
        let scratch = try Scratch()
        let run = await conformInProcess(args + CommandReportsTests.reportArgs(scratch))
        return try CommandReportsTests.read(scratch, code: run.code, out: run.out, err: run.err)
    }

    func expectValidJUnit(_ junit: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        try #require(JUnitSchema.isPresent, "junit-10.xsd is missing: run scripts/setup, which fetches it")
        let (valid, output) = try await JUnitSchema.validate(junit)
        #expect(valid == 0, "xmllint: \(output)", sourceLocation: sourceLocation)
    }

    @Test func aSelectedRunIsPartialInEveryReport() async throws {
        let r = try await reports(["run", "suites/02-login.yaml", "--step", "log in from*", "--no-color"])
        #expect(r.code == 0, "\(r.out)\(r.err)")
        let reasons = "selection: --step 'log in from*'; 1 of 24 bundled suites"
        #expect(r.out.contains("Certification: partial (\(reasons))\n"), "\(r.out)")
        #expect(r.json["certification"] == "partial")
        #expect(r.json["partialReasons"] == ["selection: --step 'log in from*'", "1 of 24 bundled suites"])
        #expect(r.json["scope"]?["selection"] == ["--step 'log in from*'"])
        #expect(r.json["scope"]?["bundledSuitesRun"] == 1)
        try await expectValidJUnit(r.junit)
        #expect(r.junit.contains("<property name=\"certification\" value=\"partial\"/>"))
        #expect(r.junit.contains("<property name=\"bundledSuites\" value=\"1 of 24 bundled suites\"/>"))
        #expect(r.junit.contains("<property name=\"selection\" value=\"--step &apos;log in from*&apos;\"/>"))
        #expect(r.html.contains("<section class=\"certification partial\" id=\"certification\""))
        #expect(r.html.contains("<strong>Partial run</strong>: this report is not a certificate."))
        #expect(r.html.contains("<dd>1 of 24 bundled suites</dd>"))
        #expect(r.html.contains("<code>--step &#39;log in from*&#39;</code>"))
    }

    @Test func theWholeBundledPlanIsCertifiable() async throws {
        let r = try await reports(["run", "--no-color"])
        #expect(r.code == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("Certification: certifiable (the whole bundled plan, nothing skipped)\n"))
        #expect(r.json["certification"] == "certifiable")
        #expect(r.json["partialReasons"] == [])
        try await expectValidJUnit(r.junit)
        #expect(r.junit.contains("<property name=\"certification\" value=\"certifiable\"/>"))
        #expect(!r.junit.contains("partialReasons"))
        #expect(r.html.contains("<section class=\"certification certifiable\" id=\"certification\""))
        #expect(r.html.contains("<strong>Certifiable run</strong>"))
        #expect(r.html.contains("<dd>24 of 24 bundled suites</dd>"))
    }

    @Test func oneShardIsPartialAndTheMergeOfEveryShardIsCertifiable() async throws {
        let scratch = try Scratch()
        for k in 1...2 {
            let run = await conformInProcess([
                "run", "--shard", "\(k)/2", "--no-color", "--report", "json:\(scratch.path("s\(k).json"))",
            ])
            #expect(run.code == 0, "\(run.out)\(run.err)")
            #expect(run.out.contains("shard \(k)/2 of the plan, not merged"), "\(run.out)")
        }
        let shard = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: scratch.path("s1.json"))))
        #expect(shard["certification"] == "partial")
        let merged = try await reports(["merge", scratch.path("s1.json"), scratch.path("s2.json"), "--no-color"])
        #expect(merged.code == 0, "\(merged.out)\(merged.err)")
        #expect(merged.json["certification"] == "certifiable", "\(merged.json["partialReasons"] ?? .null)")
        #expect(merged.out.contains("Certification: certifiable"))
        try await expectValidJUnit(merged.junit)
    }

    @Test func provenanceIsInEveryReportWithCredentialsMasked() async throws {
        let secret = "vendor-secret-code-0123456789"
        let r = try await reports([
            "run", "suites/02-login.yaml", "--var", "appCode=\(secret)", "--var", "userPrefix=p-",
            "--product", "Backend", "--product-version", "2.1", "--no-color",
        ])
        for (name, text) in [
            ("console", r.out + r.err), ("JSON", String(decoding: r.jsonBytes, as: UTF8.self)),
            ("JUnit", r.junit), ("HTML", r.html),
        ] {
            #expect(!text.contains(secret), "the \(name) report shows the credential")
        }
        let p = try #require(r.json["provenance"])
        #expect(p["kit"]?["version"] == .string(ConformCommand.version))
        #expect(p["kit"]?["commit"] == .string(ConformCommand.commit))
        #expect(ConformCommand.commit.count >= 7)
        #expect(p["suites"]?["digest"]?.stringValue?.count == 64)
        #expect(p["suites"]?["files"]?[0]?["file"] == "suites/02-login.yaml")
        #expect(p["product"] == ["name": "Backend", "version": "2.1"])
        #expect(p["commandLine"]?.arrayValue?.contains("appCode=••••6789") == true, "\(p["commandLine"] ?? .null)")
        let variables = p["variables"]?.arrayValue ?? []
        #expect(variables.contains(["name": "appCode", "value": "••••6789", "masked": true]))
        #expect(variables.contains(["name": "userPrefix", "value": "p-", "masked": false]))
        #expect(variables.contains(["name": "mobile", "value": "http://mobile.conform.invalid", "masked": false]))
        #expect(p["startedAt"]?.stringValue != nil && p["finishedAt"]?.stringValue != nil)
        #expect(r.junit.contains("<property name=\"var.appCode\" value=\"••••6789\"/>"))
        #expect(r.junit.contains("<property name=\"product\" value=\"Backend\"/>"))
        try await expectValidJUnit(r.junit)
        #expect(r.html.contains("<h2 id=\"provenance-title\">Provenance</h2>"))
        #expect(r.html.contains("<dt>Product</dt><dd>Backend <code>2.1</code></dd>"))
        #expect(r.out.contains(", product Backend 2.1\n"))
    }

    @Test func productOptionsAreCheckedBeforeAnythingRuns() async throws {
        let half = await conformInProcess(["run", "--product", "Backend", "--no-color"])
        #expect(half.code == 64)
        #expect(half.err.contains("--product and --product-version go together"), "\(half.err)")
        let scratch = try Scratch()
        try Data("name: Backend\nversion: [1]\n".utf8).write(to: URL(fileURLWithPath: scratch.path("PRODUCT.yaml")))
        let bad = await conformInProcess(["run", "--product-file", scratch.path("PRODUCT.yaml"), "--no-color"])
        #expect(bad.code == 2)
        #expect(bad.err.contains("PRODUCT.yaml:2:10: error: "), "\(bad.err)")
        #expect(bad.out.isEmpty, "nothing runs: \(bad.out)")
    }

    /// A bundle of a run of `args` in a new scratch directory.
    func bundle(_ args: [String] = []) async throws -> (
        scratch: Scratch, dir: String, run: (code: Int32, out: String, err: String)
    ) {
        let scratch = try Scratch()
        let dir = scratch.path("bundle")
        let run = await conformInProcess(
            ["run", "--bundle", dir, "--product", "Backend", "--product-version", "2.1", "--no-color"] + args)
        return (scratch, dir, run)
    }

    @Test func verifyAcceptsAFreshBundleAndJudgesItsLogAgain() async throws {
        let (scratch, dir, run) = try await bundle()
        defer { withExtendedLifetime(scratch) {} }
        #expect(run.code == 0, "\(run.out)\(run.err)")
        let files = try BundleManifest.check(directory: dir).entries.map(\.path)
        for expected in [
            "PRODUCT.yaml", "VERSION", "bundle.json", "log/exchanges.jsonl", "log/meta.json",
            "report.html", "report.json", "report.xml", "suites/003-02-login.yaml",
        ] {
            #expect(files.contains(expected), "\(files)")
        }
        let log = try String(contentsOfFile: dir + "/log/exchanges.jsonl", encoding: .utf8)
        #expect(log.split(separator: "\n").count > 250)
        #expect(log.contains("@redacted.invalid"), "the log is redacted as recordings are")
        let verified = await conformInProcess(["verify", dir, "--no-color"])
        #expect(verified.code == 0, "\(verified.out)\(verified.err)")
        #expect(verified.err.contains("each as its manifest says"))
        #expect(verified.err.contains("Suites: the bundle's 24 suites are this kit's bundled suites"))
        #expect(
            verified.err.contains("the same as each of the bundle's reports (JSON, JUnit, HTML) for all 354 steps"),
            "\(verified.err)")
        #expect(verified.out.contains("Certification: certifiable"))
    }

    @Test func verifyGivesTheRunsExitCodeForABundleThatDoesNotConform() async throws {
        let (scratch, dir, run) = try await bundle(["--fault", "emptyIdentityAccepted"])
        defer { withExtendedLifetime(scratch) {} }
        #expect(run.code == 1)
        let verified = await conformInProcess(["verify", dir, "--no-color"])
        #expect(verified.code == 1, "\(verified.out)\(verified.err)")
        #expect(verified.out.contains("Result: DOES NOT CONFORM\n"))
        #expect(
            verified.out.hasSuffix(
                "Verification: VERIFIED partial (7 steps skipped), DOES NOT CONFORM, unsigned; no certificate: that is a whole "
                    + "run of the bundled plan with every step run (pass --allow-partial to accept a partial one)\n"))
    }

    /// A bundle of part of the plan (one suite, a shard) is intact but no certificate: exit 1 with the reasons, even
    /// when its run conforms, unless `--allow-partial` accepts it.
    @Test func verifyOfAPartialBundleIsNoCertificateUnlessAllowed() async throws {
        let (scratch, dir, run) = try await bundle(["suites/01-registration.yaml"])
        defer { withExtendedLifetime(scratch) {} }
        #expect(run.code == 0, "\(run.out)\(run.err)")
        let verified = await conformInProcess(["verify", dir, "--no-color"])
        #expect(verified.code == 1, "\(verified.out)\(verified.err)")
        #expect(verified.out.contains("Result: CONFORMS\n"))
        #expect(
            verified.out.hasSuffix(
                "Verification: VERIFIED partial (1 of 24 bundled suites), CONFORMS, unsigned; no certificate: that is a whole "
                    + "run of the bundled plan with every step run (pass --allow-partial to accept a partial one)\n"),
            "\(verified.out)")
        let allowed = await conformInProcess(["verify", dir, "--allow-partial", "--no-color"])
        #expect(allowed.code == 0, "\(allowed.out)\(allowed.err)")
        #expect(
            allowed.out.hasSuffix(
                "Verification: VERIFIED partial (1 of 24 bundled suites), CONFORMS, unsigned; accepted with --allow-partial\n"
            ))
        let whole = try await bundle()
        defer { withExtendedLifetime(whole.scratch) {} }
        let certified = await conformInProcess(["verify", whole.dir, "--no-color"])
        #expect(certified.code == 0, "\(certified.out)\(certified.err)")
        #expect(certified.out.hasSuffix("Verification: VERIFIED certifiable, CONFORMS, unsigned\n"))
    }

    @Test func verifyRefusesABundleWithOneByteChangedInAnyFile() async throws {
        let (scratch, dir, run) = try await bundle(["suites/02-login.yaml", "suites/08-auth-model.yaml"])
        #expect(run.code == 0, "\(run.out)\(run.err)")
        let files = try BundleManifest.check(directory: dir).entries.map(\.path) + [BundleManifest.fileName]
        #expect(files.count >= 10)
        for file in files {
            let copy = scratch.path("copy")
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: dir, toPath: copy)
            let url = URL(fileURLWithPath: copy + "/" + file)
            var bytes = [UInt8](try Data(contentsOf: url))
            // A hex digit stays a hex digit, so a changed manifest line still reads as one.
            let at = bytes.count / 2
            bytes[at] =
                bytes[at] == UInt8(ascii: "a")
                ? UInt8(ascii: "b") : bytes[at] == UInt8(ascii: "b") ? UInt8(ascii: "c") : bytes[at] ^ 0x01
            try Data(bytes).write(to: url)
            let verified = await conformInProcess(["verify", copy, "--no-color"])
            #expect(verified.code == 2, "\(file): \(verified.err)")
            #expect(
                verified.out
                    == "Verification: TAMPERED (the bundle is incomplete, changed or holds what a bundle does not)\n",
                "\(file): nothing is judged")
            let named = file == BundleManifest.fileName ? "manifest" : "error: \(file): "
            #expect(verified.err.contains(named), "\(file): \(verified.err)")
        }
    }

    @Test func verifyRefusesMissingExtraLinkedAndEscapingFiles() async throws {
        let (scratch, dir, _) = try await bundle(["suites/02-login.yaml"])
        func variant(_ change: (String) throws -> Void) async throws -> String {
            let copy = scratch.path("copy")
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: dir, toPath: copy)
            try change(copy)
            let verified = await conformInProcess(["verify", copy, "--no-color"])
            #expect(verified.code == 2)
            return verified.err
        }
        let missing = try await variant { try FileManager.default.removeItem(atPath: $0 + "/VERSION") }
        #expect(missing.contains("VERSION: the manifest lists the file but the bundle does not hold it"), "\(missing)")
        let extra = try await variant { try Data("x".utf8).write(to: URL(fileURLWithPath: $0 + "/suites/extra.yaml")) }
        #expect(extra.contains("suites/extra.yaml: the file is in the bundle but not in its manifest"), "\(extra)")
        let link = try await variant { dir in
            try FileManager.default.removeItem(atPath: dir + "/VERSION")
            try FileManager.default.createSymbolicLink(atPath: dir + "/VERSION", withDestinationPath: "/etc/hostname")
        }
        #expect(link.contains("VERSION: is a symbolic link"), "\(link)")
        let escaping = try await variant { dir in
            let manifest = try String(contentsOfFile: dir + "/MANIFEST.sha256", encoding: .utf8)
            try (manifest + String(repeating: "0", count: 64) + "  ../outside\n").write(
                toFile: dir + "/MANIFEST.sha256", atomically: false, encoding: .utf8)
        }
        #expect(escaping.contains("the path '../outside' is absolute, empty or leaves the bundle"), "\(escaping)")
    }

    @Test func aReportChangedAndSealedAgainDoesNotFollowFromTheLog() async throws {
        let (scratch, dir, _) = try await bundle(["suites/02-login.yaml"])
        defer { withExtendedLifetime(scratch) {} }
        let report = dir + "/report.json"
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let steps = try #require(text.range(of: "\"steps\": ["))
        // A step's verdict, then (in a second bundle) only the suite's, each changed and the bundle sealed again.
        for (marker, expected) in [
            (steps.upperBound, "login › phone › 1. register the phone: the report says fail, judged again pass"),
            (text.startIndex, "suite login: the report says fail, judged again pass"),
        ] {
            let range = try #require(text.range(of: "\"verdict\": \"pass\"", range: marker..<text.endIndex))
            try text.replacingCharacters(in: range, with: "\"verdict\": \"fail\"").write(
                toFile: report, atomically: false, encoding: .utf8)
            try FileManager.default.removeItem(atPath: dir + "/MANIFEST.sha256")
            _ = try CertificationBundle.seal(dir)
            let verified = await conformInProcess(["verify", dir, "--no-color"])
            #expect(verified.code == 2)
            #expect(
                verified.err.contains("report.json: error: the report does not follow from the bundle's log"),
                "\(verified.err)")
            #expect(verified.err.contains(expected), "\(verified.err)")
        }
    }
}
