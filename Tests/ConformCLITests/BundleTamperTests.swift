import ConformBundles
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

/// `conform verify` verifies everything a bundle ships, run as the built binary: a failing run's bundle whose HTML
/// page says CONFORMS, whose JUnit has no failure, whose product file was renamed or changed, or that holds a file
/// too many or too few (each with the manifest written again) is refused with the file and what disagrees; a CRLF
/// manifest is said to be one; the HTML and JUnit reports show bidirectional controls escaped, as the console does.
@Suite(.serialized) struct BundleTamperTests {
    /// Runs the built `conform` with `args` from the repository root.
    func conform(_ args: [String]) async throws -> (code: Int32, out: String, err: String) {
        let binary = TestPaths.conformBinary.path
        try #require(
            FileManager.default.isExecutableFile(atPath: binary),
            "\(binary) is missing; build it with 'swift build' before 'swift test --skip-build'")
        let run = try await ChildProcess.output(
            binary, args, directory: TestPaths.root, separateStandardError: true)
        return (run.status, run.output, run.errorOutput)
    }

    /// A bundle of a run of the bad-payloads suite against the reference with a fault, which does not conform.
    func failingBundle(_ scratch: Scratch) async throws -> String {
        let dir = scratch.path("bundle")
        let run = try await conform([
            "run", "--bundle", dir, "--product", "Backend", "--product-version", "2.1", "--fault",
            "emptyIdentityAccepted", "--no-color", "suites/08-bad-payloads.yaml",
        ])
        try #require(run.code == 1, "\(run.out)\(run.err)")
        return dir
    }

    /// A copy of `dir` changed by `change`, its manifest written again as a forger would, then verified.
    func tampered(_ dir: String, _ scratch: Scratch, reseal: Bool = true, _ change: (String) throws -> Void)
        async throws -> (code: Int32, out: String, err: String)
    {
        let copy = scratch.path("copy")
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: dir, toPath: copy)
        try change(copy)
        if reseal {
            try FileManager.default.removeItem(atPath: copy + "/" + BundleManifest.fileName)
            _ = try CertificationBundle.seal(copy)
        }
        return try await conform(["verify", copy, "--no-color"])
    }

    /// `file` inside `dir` with `old` replaced by `new` everywhere, which must occur.
    func replace(_ old: String, _ new: String, in file: String, _ dir: String) throws {
        let path = dir + "/" + file
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try #require(text.contains(old), "\(file) does not hold \(old)")
        try text.replacingOccurrences(of: old, with: new).write(toFile: path, atomically: false, encoding: .utf8)
    }

    @Test func anUntouchedFailingBundleVerifiesWithItsExitCode() async throws {
        let scratch = try Scratch("tamper")
        let dir = try await failingBundle(scratch)
        let verified = try await conform(["verify", dir, "--no-color"])
        #expect(verified.code == 1, "\(verified.err)")
        #expect(
            verified.err.contains(
                "Verdict: judged again from the log, the same as each of the bundle's reports (JSON, JUnit, HTML) for all 9 steps\n"
            ), "\(verified.err)")
        #expect(verified.out.contains("Result: DOES NOT CONFORM\n"))
        #expect(
            verified.out.hasSuffix(
                ", DOES NOT CONFORM, unsigned; no certificate: that is a whole run of the bundled plan with every step run (pass --allow-partial to accept a partial one)\n"
            ))
    }

    @Test func anHTMLPageThatSaysConformsForAFailingRunIsRefused() async throws {
        let scratch = try Scratch("tamper")
        let dir = try await failingBundle(scratch)
        let verified = try await tampered(dir, scratch) { copy in
            try replace(
                "<p class=\"overall v-fail\" id=\"overall\"><span class=\"symbol\" aria-hidden=\"true\">✘</span> Conformance run — DOES NOT CONFORM</p>",
                "<p class=\"overall v-pass\" id=\"overall\"><span class=\"symbol\" aria-hidden=\"true\">✔</span> Conformance run — CONFORMS</p>",
                in: "report.html", copy)
        }
        #expect(verified.code == 2)
        #expect(
            verified.err.contains(
                """
                /copy/report.html: error: the report does not follow from the bundle's log (2 differences):
                  an element marked as a verdict: the report says <p class="overall v-pass">, judged again <p class="overall v-fail">
                  the headline: the report says (overall v-pass) ✔ Conformance run — CONFORMS, judged again (overall v-fail) ✘ Conformance run — DOES NOT CONFORM
                help: the report or the log was changed, or the run cannot be judged again; make the bundle again
                """), "\(verified.err)")
        // A second headline, or one hidden in a comment while a false one shows, is refused as well.
        let added = try await tampered(dir, scratch) { copy in
            try replace(
                "<header class=\"report-header\">",
                "<header class=\"report-header\"><!-- <p class=\"overall v-fail\" id=\"overall\">x</p> -->"
                    + "<p class=\"overall v-pass\" id=\"overall\">CONFORMS</p>", in: "report.html", copy)
        }
        #expect(added.code == 2)
        #expect(
            added.err.contains(
                "the headline: the report says (overall v-pass) CONFORMS, judged again (overall v-fail) ✘ Conformance run — DOES NOT CONFORM"
            ), "\(added.err)")
    }

    /// A page that keeps its words but shows others: a script that rewrites the headline, a style that hides it.
    @Test func anHTMLPageWithAScriptOrAStyleOfItsOwnIsRefused() async throws {
        let scratch = try Scratch("tamper")
        let dir = try await failingBundle(scratch)
        let script = try await tampered(dir, scratch) { copy in
            try replace(
                "</body>", "<script>document.getElementById('overall').textContent = 'CONFORMS'</script></body>",
                in: "report.html", copy)
        }
        #expect(script.code == 2)
        #expect(
            script.err.contains(
                "a script: the report says document.getElementById('overall').textContent = 'CONFORMS', judged again nothing"
            ), "\(script.err)")
        let hidden = try await tampered(dir, scratch) { copy in
            try replace(
                "<p class=\"overall v-fail\" id=\"overall\">",
                "<p class=\"overall v-fail\" id=\"overall\" style=\"display:none\">",
                in: "report.html", copy)
        }
        #expect(hidden.code == 2)
        #expect(
            hidden.err.contains("markup the page never holds: the report says <p style>, judged again nothing\n"),
            "\(hidden.err)"
        )
    }

    /// A partial run's reports made to say certifiable, each in its own bundle.
    @Test func aPartialRunsReportsThatSayCertifiableAreRefused() async throws {
        let scratch = try Scratch("tamper")
        let dir = try await failingBundle(scratch)
        let html = try await tampered(dir, scratch) { copy in
            try replace(
                "<section class=\"certification partial\"", "<section class=\"certification certifiable\"",
                in: "report.html", copy)
            try replace(
                "<strong>Partial run</strong>: this report is not a certificate. The verdict covers only what ran.",
                "<strong>Certifiable run</strong>: the whole bundled plan ran against one target.", in: "report.html",
                copy)
        }
        #expect(html.code == 2)
        #expect(
            html.err.contains(
                """
                  the certification: the report says <section class="certification certifiable">, judged again <section class="certification partial">
                  the certification's reasons: the report says Certifiable run : the whole bundled plan ran against one target., judged again Partial run : this report is not a certificate. The verdict covers only what ran.
                """), "\(html.err)")
        let junit = try await tampered(dir, scratch) { copy in
            try replace(
                "<property name=\"certification\" value=\"partial\"/>",
                "<property name=\"certification\" value=\"certifiable\"/>", in: "report.xml", copy)
        }
        #expect(junit.code == 2)
        #expect(
            junit.err.contains("the certification: the report says certifiable, judged again partial\n"),
            "\(junit.err)")
        let json = try await tampered(dir, scratch) { copy in
            try replace("\"certification\": \"partial\"", "\"certification\": \"certifiable\"", in: "report.json", copy)
        }
        #expect(json.code == 2)
        #expect(
            json.err.contains("the report's certification is \"certifiable\", judged again \"partial\""), "\(json.err)")
    }

    /// A bundle another kit wrote still verifies; what only that kit can judge the same is said not to be compared.
    @Test func aBundleOfAnotherKitVerifiesAndSaysWhatWasNotCompared() async throws {
        let scratch = try Scratch("tamper")
        let dir = try await failingBundle(scratch)
        let other = try await tampered(dir, scratch) { copy in
            let info = copy + "/bundle.json"
            let text = try String(contentsOfFile: info, encoding: .utf8)
            let version = try #require(text.firstRange(of: /"version": "[^"]*"/))
            try text.replacingCharacters(in: version, with: "\"version\": \"0.0.1\"").write(
                toFile: info, atomically: false, encoding: .utf8)
            let commit = try String(contentsOfFile: copy + "/VERSION", encoding: .utf8).split(separator: "\n")[1]
            try "conform 0.0.1\n\(commit)\n".write(toFile: copy + "/VERSION", atomically: false, encoding: .utf8)
        }
        #expect(other.code == 1, "\(other.err)")
        #expect(
            other.err.contains(
                "Reports: the bundle was written by conform 0.0.1 (commit "), "\(other.err)")
        #expect(
            other.err.contains(
                "), not this kit; the certification the reports state and the HTML page's script and style were not compared\n"
            ), "\(other.err)")
        #expect(other.out.contains("Result: DOES NOT CONFORM\n"))
    }

    @Test func aJUnitReportWithNoFailureForAFailingRunIsRefused() async throws {
        let scratch = try Scratch("tamper")
        let dir = try await failingBundle(scratch)
        let verified = try await tampered(dir, scratch) { copy in
            let path = copy + "/report.xml"
            var text = try String(contentsOfFile: path, encoding: .utf8)
            let failure = try #require(text.range(of: "<failure "))
            let end = try #require(text.range(of: "</failure>", range: failure.upperBound..<text.endIndex))
            text.removeSubrange(failure.lowerBound..<end.upperBound)
            try text.replacingOccurrences(of: "failures=\"1\"", with: "failures=\"0\"").write(
                toFile: path, atomically: false, encoding: .utf8)
        }
        #expect(verified.code == 2)
        #expect(
            verified.err.contains(
                """
                /copy/report.xml: error: the report does not follow from the bundle's log (3 differences):
                  the run: the report says Conform: Conformance run — DOES NOT CONFORM: tests=9 failures=0 errors=0, judged again Conform: Conformance run — DOES NOT CONFORM: tests=9 failures=1 errors=0
                  suite bad-payloads: the report says tests=9 failures=0 errors=0 skipped=7, judged again tests=9 failures=1 errors=0 skipped=7
                  test case bad-payloads.main › 2. personalize with an empty userIdentity is refused: the report says pass, judged again failure
                """), "\(verified.err)")
    }

    @Test func aProductFileRenamedChangedOrAddedIsRefused() async throws {
        let scratch = try Scratch("tamper")
        let dir = try await failingBundle(scratch)
        let renamed = try await tampered(dir, scratch) { copy in
            try FileManager.default.moveItem(atPath: copy + "/PRODUCT.yaml", toPath: copy + "/PRODUCT.yml")
        }
        #expect(renamed.code == 2)
        #expect(
            renamed.out
                == "Verification: TAMPERED (the bundle is incomplete, changed or holds what a bundle does not)\n",
            "nothing is judged")
        #expect(
            renamed.err.contains(
                """
                error: PRODUCT.yaml: the report's provenance names the product 'Backend 2.1', but the bundle holds no PRODUCT.yaml
                help: the product file was taken out or renamed and the manifest written again; ask for the bundle as it was written
                """), "\(renamed.err)")
        // The product changed in the report's provenance and the product file alike, not in the other reports.
        let renamedProduct = try await tampered(dir, scratch) { copy in
            try replace("version: \"2.1\"", "version: \"3.0\"", in: "PRODUCT.yaml", copy)
            try replace("\"version\": \"2.1\"", "\"version\": \"3.0\"", in: "report.json", copy)
        }
        #expect(renamedProduct.code == 2)
        #expect(
            renamedProduct.err.contains("the product's version: the report says 2.1, judged again 3.0\n"),
            "\(renamedProduct.err)")
        #expect(
            renamedProduct.err.contains(
                "the product: the report says Backend 2.1, judged again Backend 3.0\n"),
            "\(renamedProduct.err)")
        let changed = try await tampered(dir, scratch) { copy in
            try replace("version: \"2.1\"", "version: \"3.0\"", in: "PRODUCT.yaml", copy)
        }
        #expect(changed.code == 2)
        #expect(
            changed.err.contains(
                "error: PRODUCT.yaml: its version is '3.0', the report's provenance says '2.1'"), "\(changed.err)")
    }

    @Test func aFileAddedOrTakenOutWithTheManifestWrittenAgainIsRefused() async throws {
        let scratch = try Scratch("tamper")
        let dir = try await failingBundle(scratch)
        let added = try await tampered(dir, scratch) { copy in
            try Data("<html>CONFORMS</html>".utf8).write(to: URL(fileURLWithPath: copy + "/certificate.html"))
        }
        #expect(added.code == 2)
        #expect(
            added.err.contains(
                "error: certificate.html: is not a file a bundle holds (its reports, bundle.json, VERSION, PRODUCT.yaml, the log and the suites bundle.json names)"
            ), "\(added.err)")
        let removed = try await tampered(dir, scratch) { copy in
            try FileManager.default.removeItem(atPath: copy + "/report.xml")
        }
        #expect(removed.code == 2)
        #expect(
            removed.err.contains(
                "error: report.xml: the bundle does not hold this file, which every bundle of this run holds"),
            "\(removed.err)")
        let version = try await tampered(dir, scratch) { copy in
            try Data("conform 9.9\ncommit x\n".utf8).write(to: URL(fileURLWithPath: copy + "/VERSION"))
        }
        #expect(version.code == 2)
        #expect(version.err.contains("error: VERSION: does not name the kit bundle.json names"), "\(version.err)")
    }

    /// A file over its limit is refused by its size before a byte is read (sparse files: no disk is spent).
    @Test func aFileOverItsLimitIsRefusedBeforeItIsRead() async throws {
        let scratch = try Scratch("tamper")
        let dir = try await failingBundle(scratch)
        func grow(_ path: String, to size: UInt64) throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: size)
            try handle.close()
        }
        let html = try await tampered(dir, scratch, reseal: false) { copy in
            try grow(copy + "/report.html", to: UInt64(BundleManifest.maxFileBytes) + 1)
        }
        #expect(html.code == 2)
        #expect(
            html.err.contains(
                """
                error: report.html: cannot be read: larger than 1073741824 bytes
                help: verify reads this file only up to 1073741824 bytes (docs/hostile-input.md), more than 'conform run --bundle' writes; ask for the bundle as it was written
                """), "\(html.err)")
        // bundle.json over its own, smaller limit, with the manifest written again so only the limit stops it.
        let info = try await tampered(dir, scratch) { copy in
            try grow(copy + "/bundle.json", to: UInt64(BundleInfo.maxFileBytes) + 1)
        }
        #expect(info.code == 2)
        #expect(
            info.err.contains("error: bundle.json: cannot be read: larger than 268435456 bytes\n"), "\(info.err)")
    }

    @Test func aManifestWithCRLFLineEndingsIsSaidToBeOne() async throws {
        let scratch = try Scratch("tamper")
        let dir = try await failingBundle(scratch)
        let verified = try await tampered(dir, scratch, reseal: false) { copy in
            let path = copy + "/" + BundleManifest.fileName
            let text = try String(contentsOfFile: path, encoding: .utf8)
            try text.replacingOccurrences(of: "\n", with: "\r\n").write(
                toFile: path, atomically: false, encoding: .utf8)
        }
        #expect(verified.code == 2)
        #expect(
            verified.err.contains(
                """
                error: MANIFEST.sha256:1:79: the line ends in CRLF (\\r\\n); the manifest's lines end in LF alone, as 'conform run --bundle' writes them
                help: the bundle went through a conversion of line endings, which changes its other text files too; copy or unpack the original again without converting them (git: core.autocrlf false; unzip without -a)
                """), "\(verified.err)")
    }

    @Test func bidirectionalControlsFromTheProductFileAreEscapedInEveryReport() async throws {
        let scratch = try Scratch("tamper")
        let product = scratch.path("PRODUCT.yaml")
        // Each of the marks, overrides and isolates, in a name that would read otherwise.
        let controls = ["\u{202E}", "\u{202A}", "\u{2066}", "\u{2069}", "\u{200F}", "\u{200E}", "\u{061C}"]
        try "name: \"Back\(controls.joined())end\"\nversion: \"2.1\"\nvendor: \"ACME\u{202D}\"\n".write(
            toFile: product, atomically: false, encoding: .utf8)
        let dir = scratch.path("bundle")
        let run = try await conform([
            "run", "--bundle", dir, "--product-file", product, "--no-color", "suites/02-login.yaml",
        ])
        try #require(run.code == 0, "\(run.out)\(run.err)")
        let escaped = #"Back\u{202e}\u{202a}\u{2066}\u{2069}\u{200f}\u{200e}\u{061c}end"#
        for report in ["report.html", "report.xml"] {
            let text = try String(contentsOfFile: dir + "/" + report, encoding: .utf8)
            #expect(
                !text.unicodeScalars.contains {
                    (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
                        || [0x200E, 0x200F, 0x061C].contains($0.value)
                },
                "\(report) holds a bidirectional control")
            #expect(text.contains(escaped), "\(report)")
        }
        let html = try String(contentsOfFile: dir + "/report.html", encoding: .utf8)
        #expect(html.contains(#"ACME\u{202d}"#))
        // The product file in the bundle is the one given, so the bundle still verifies.
        let verified = try await conform(["verify", dir, "--allow-partial", "--no-color"])
        #expect(verified.code == 0, "\(verified.err)")
    }
}
