import ConformCore
import ConformDiagnostics
import ConformReport
import ConformTestSupport
import Foundation
import Testing

/// Each command's page as a reader sees it in Chromium (through Playwright), at 1280 and 390 px wide: nothing wider
/// than the window on a failing run with long values, a client check with violations, a diff with differences and a
/// verification; each headline in its command's words. Every page and a PNG of its first screen at each width are
/// kept in `conform-report-layout` under the temporary directory, to be looked at.
@Suite(.serialized) struct ReportLayoutBrowserTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let sample = "recordings/personalization-flow"
    static let violations = "Tests/ConformCLITests/Cases/traffic-check-violations/trace.jsonl"
    static let widths = [1280, 390]

    /// Loads each page at each width, measures it and keeps a screenshot of its first screen.
    static let script = #"""
        import json, sys
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            sys.exit(3)
        pages, shots, chromium = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
        widths = [int(w) for w in sys.argv[4].split(",")]
        out = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            for name, path in pages:
                for width in widths:
                    page = browser.new_page(viewport={"width": width, "height": 900})
                    page.goto("file://" + path)
                    m = page.evaluate("""() => {
                        const text = s => { const e = document.querySelector(s); return e ? e.innerText.trim() : null; };
                        const wide = [];
                        for (const el of document.querySelectorAll("body *")) {
                            if (el.closest(".table-scroll")) continue;
                            const r = el.getBoundingClientRect();
                            if (r.right > innerWidth + 0.5) wide.push(el.tagName.toLowerCase() + "." + el.className + " right=" + Math.round(r.right));
                            if (wide.length >= 8) break;
                        }
                        return {
                            scrollWidth: document.scrollingElement.scrollWidth, innerWidth: innerWidth, wide: wide,
                            h1: text("h1"), overall: text("#overall"), violated: text("#violated"),
                            same: text("section.matrix details.same-groups > summary"),
                            columns: Array.from(document.querySelectorAll("#verdict-matrix thead th")).map(th => th.innerText.trim()),
                            details: text("ul.verification-details"),
                            tables: Array.from(document.querySelectorAll(".table-scroll"))
                                .map(b => b.scrollWidth - b.clientWidth)
                        };
                    }""")
                    m.update(name=name, width=width)
                    page.screenshot(path=f"{shots}/{name}-{width}.png")
                    out.append(m)
                    page.close()
            browser.close()
        print(json.dumps(out))
        """#

    /// A failing run's page full of long values: a URL, JSON paths, an error text, header values and a suite title
    /// without a place to break, and a product named at length.
    static func longValues() -> RunResult {
        let long = String(repeating: "x", count: 600)
        let url =
            "https://staging-backend-of-a-very-long-host-name.example.test/mobile/1/appinstance/"
            + String(repeating: "7b9c87e0-4e02-4c95-a95f-b829abc94e86", count: 12)
            + "/personalize?forceDepersonalize=false&k=" + long
        let path = "$" + String(repeating: ".customAttributes.nestedObjectWithALongName", count: 15) + "[0]"
        let body = Data(#"{"externalUserId":"\#(long)","url":"\#(url)"}"#.utf8)
        var fields = HTTPFields()
        fields.append(name: "X-Request-Trace-" + String(repeating: "Segment", count: 20), value: long)
        fields.append(name: "Location", value: url)
        let failure = CheckFailure(
            severity: .must,
            mismatches: [
                Mismatch(path: path, expected: "\"\(long)\"", actual: "\"\(url)\"", note: "help: " + long),
                Mismatch(path: "status", expected: "200", actual: "503"),
            ])
        let failed = StepResult(
            suiteID: "login-" + long.prefix(80), flow: "log in from a second device " + long.prefix(120), index: 0,
            name: "personalize " + url, file: "suites/" + long.prefix(100) + ".yaml",
            mark: SourceMark(line: 98, column: 7),
            spec: SpecReference(), verdict: .fail,
            request: HTTPRequest(method: .post, url: url, headerFields: fields, body: body),
            response: HTTPResponse(status: HTTPStatus(503), headerFields: fields, body: body), failures: [failure])
        let errored = StepResult(
            suiteID: "login-" + long.prefix(80), flow: "log in", index: 1, name: "depersonalize",
            file: "suites/login.yaml",
            mark: SourceMark(line: 120, column: 7), spec: SpecReference(), verdict: .error,
            error: "the target is unreachable: " + url + " " + long)
        let group = ResultGroup(
            kind: .suite, id: "login-" + long.prefix(80), title: "Log in " + long, step: "2-login-" + long.prefix(60),
            file: "suites/" + long.prefix(100) + ".yaml", contentHash: String(repeating: "ab", count: 32),
            profile: "all")
        var result = RunResult(
            command: .run, suites: [SuiteResult(group: group, steps: [failed, errored], duration: 1)], duration: 1,
            target: url)
        result.contactedOrigins = [String(url.prefix(400))]
        result.scope = RunScope(
            selection: ["--step '\(long)'"], bundledSuites: 22, bundledSuitesRun: 1,
            otherSuites: [String(long.prefix(200))])
        result.provenance = RunProvenance(
            kitVersion: "1.0.0", kitCommit: String(repeating: "c", count: 40),
            suitesDigest: String(repeating: "d", count: 64),
            suiteFiles: [
                RunProvenance.SuiteFile(file: "suites/" + long + ".yaml", sha256: String(repeating: "e", count: 64))
            ],
            commandLine: ["conform", "run", "--target", url, "--var", "appCode=" + long],
            variables: [RunProvenance.Variable(name: "base" + long.prefix(50), value: url, masked: false)],
            product: ProductIdentity(
                name: "Backend" + String(repeating: "Service", count: 30), version: "2.1.0-" + long.prefix(100),
                details: [("vendor", "ACME " + long.prefix(200))]),
            startedAt: Date(timeIntervalSince1970: 1_800_000_000))
        return result
    }

    /// Every page of the test, written into `scratch`: name and path.
    func pages(_ scratch: Scratch) async throws -> [(String, String)] {
        var pages: [(String, String)] = []
        func write(_ name: String, _ args: [String], code: Int32) async throws {
            let page = scratch.path(name + ".html")
            let run = await conformInProcess(args + ["--report", "html:\(page)"])
            #expect(run.code == code, "\(name): \(run.out.suffix(1500))\(run.err.suffix(1500))")
            pages.append((name, page))
        }
        let long = scratch.path("long-values.html")
        try Data(HTMLReporter(sink: MemorySink(), date: "2027-01-15 10:00:00 UTC").text(Self.longValues()).utf8)
            .write(to: URL(fileURLWithPath: long))
        pages.append(("run-long-values", long))
        let product = scratch.path("PRODUCT.yaml")
        try "name: \"Messaging Backend\"\nversion: \"2.1.0\"\nvendor: \"ACME\"\n".write(
            toFile: product, atomically: false, encoding: .utf8)
        try await write(
            "run-failing",
            ["run", "suites/02-login.yaml", "--fault", "ignoreForceDepersonalize", "--product-file", product], code: 1)
        try await write("check-violations", ["check", Self.violations], code: 1)
        try await write(
            "diff-differences",
            [
                "diff", "--target", "builtin", "--target", "builtin", "--noise", Self.sample + "/noise.yaml",
                "--fault-b",
                "ignoreForceDepersonalize", Self.sample,
            ], code: 1)
        let bundle = scratch.path("bundle")
        let made = await conformInProcess([
            "run", "suites/02-login.yaml", "--bundle", bundle, "--product-file", product, "--no-color",
        ])
        try #require(made.code == 0, "\(made.out)\(made.err)")
        try await write("verify-partial", ["verify", bundle], code: 1)
        let xml = bundle + "/report.xml"
        try (try String(contentsOfFile: xml, encoding: .utf8) + "\n").write(
            toFile: xml, atomically: false, encoding: .utf8)
        let json = scratch.path("verify.json")
        try await write("verify-tampered", ["verify", bundle, "--report", "json:\(json)"], code: 2)
        // The JSON report of the verification says the same, with what was found.
        let verification = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: json)))["verification"]
        #expect(verification?["verdict"] == "TAMPERED")
        #expect(verification?["bundle"]?.stringValue == bundle)
        #expect(
            verification?["reasons"]?.arrayValue?.dropFirst().first?.stringValue?.contains(
                "report.xml: the file (or the manifest) was changed") == true, "\(verification?.serialized() ?? "")")
        return pages
    }

    @Test(.enabled(if: chromium != nil && Tool.has("python3"), "needs Playwright for Python and Debian's chromium"))
    func everyCommandsPageFitsAndSaysWhatItIs() async throws {
        let scratch = try Scratch("layout")
        let pages = try await pages(scratch)
        let shots = FileManager.default.temporaryDirectory.appendingPathComponent("conform-report-layout")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        for (name, page) in pages {
            let kept = shots.appendingPathComponent(name + ".html")
            try? FileManager.default.removeItem(at: kept)
            try FileManager.default.copyItem(at: URL(fileURLWithPath: page), to: kept)
        }
        let script = scratch.path("layout.py")
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        let list = JSONValue.array(pages.map { JSONValue.array([.string($0.0), .string($0.1)]) }).serialized()
        let outcome = try await ChildProcess.output(
            Tool.path("python3")!,
            [
                script, list, shots.path, try #require(Self.chromium),
                Self.widths.map(String.init).joined(separator: ","),
            ],
            separateStandardError: true)
        try #require(outcome.status != 3, "Playwright for Python is not installed (scripts/setup installs it)")
        try #require(outcome.status == 0, "\(outcome.output)\(outcome.errorOutput)")
        let measured = try JSONValue.parse(Data(outcome.output.utf8)).arrayValue ?? []
        #expect(measured.count == pages.count * Self.widths.count)
        var byPage: [String: [JSONValue]] = [:]
        for m in measured {
            let name = m["name"]?.stringValue ?? "?"
            byPage[name, default: []].append(m)
            func number(_ key: String) -> Int {
                if case .int(let n)? = m[key] { return n }
                if case .double(let d)? = m[key] { return Int(d.rounded(.up)) }
                return -1
            }
            let width = number("width")
            #expect(number("innerWidth") == width, "\(name)")
            #expect(
                number("scrollWidth") <= width,
                "\(name) at \(width) px is \(number("scrollWidth")) px wide: \(m["wide"]?.serialized() ?? "")")
            #expect(FileManager.default.fileExists(atPath: shots.appendingPathComponent("\(name)-\(width).png").path))
            // At 1280 px every table fits whole; on a phone a wide one may scroll inside its own box.
            if width == 1280 {
                let hidden = m["tables"]?.arrayValue ?? []
                #expect(!hidden.isEmpty || name == "verify-tampered", "\(name): no table")
                #expect(
                    hidden.allSatisfy { if case .int(let n) = $0 { n <= 0 } else { false } },
                    "\(name): a table scrolls inside its box at 1280 px by \(m["tables"]?.serialized() ?? "")")
            }
        }
        func first(_ name: String) -> JSONValue? { byPage[name]?.first }
        func columns(_ name: String) -> [String] {
            first(name)?["columns"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }

        // A run names the product it certifies, not the URL it reached.
        #expect(first("run-failing")?["h1"]?.stringValue == "Messaging Backend 2.1.0")
        #expect(first("run-failing")?["overall"]?.stringValue == "✘ Conformance run — DOES NOT CONFORM")
        #expect(
            columns("run-failing") == [
                "Flow step", "Suite", "Profile", "Version", "✔ Pass", "✘ Fail", "~ Assumption not met", "– Skipped",
                "! Error", "Verdict",
            ])
        // A client check names its broken rules at the top, and its table is of rules.
        let check = first("check-violations")
        #expect(check?["overall"]?.stringValue == "✘ Client check — 8 violations")
        #expect(
            check?["violated"]?.stringValue
                == "3 rules broken:\n\nregistration-first × 6\nuser-switch × 1\nbackend-credentials × 1",
            "\(check?["violated"]?.serialized() ?? "")")
        #expect(columns("check-violations") == ["Flow step", "Rule", "Violations", "Verdict"])
        // A diff counts the exchanges that differ, and folds the flows that are the same.
        let diff = first("diff-differences")
        #expect(diff?["overall"]?.stringValue == "✘ Differential — 3 of 16 exchanges differ")
        #expect(diff?["same"]?.stringValue == "1 device flow the same (7 exchanges)")
        #expect(
            columns("diff-differences") == [
                "Device flow", "✔ Same", "✘ Differ", "– Not judged", "! No answer", "Verdict",
            ])
        // A verification reads as one.
        let partial = first("verify-partial")
        #expect(partial?["h1"]?.stringValue == "Messaging Backend 2.1.0")
        #expect(
            partial?["overall"]?.stringValue
                == "~ Verification — VERIFIED partial (1 of 24 bundled suites), CONFORMS; no certificate")
        let tampered = first("verify-tampered")
        #expect(
            tampered?["overall"]?.stringValue
                == "! Verification — TAMPERED (the bundle is incomplete, changed or holds what a bundle does not)")
        #expect(tampered?["details"]?.stringValue?.hasPrefix("report.xml: ") == true, "\(tampered?.serialized() ?? "")")
    }
}
