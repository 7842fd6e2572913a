import ConformCLI
import ConformCore
import ConformReport
import ConformTestSupport
import Foundation
import Testing

/// Every command that has a result, passing and failing: its console, exit code and three reports come from the one
/// result through the one renderer, each titled by the command, the JSON readable by `merge`'s reader and the JUnit
/// valid against junit-10.xsd.
@Suite(.serialized) struct CommandReportsTests {
    static let root = TestPaths.root.path
    static let sample = "recordings/personalization-flow"
    static let sampleNoise = "recordings/personalization-flow/noise.yaml"

    /// What a command printed and wrote.
    struct Reports {
        var code: Int32
        var out: String
        var err: String
        var json: JSONValue
        var jsonBytes: [UInt8]
        var junit: String
        var html: String
    }

    /// The `--report` options for the three files in `scratch`.
    static func reportArgs(_ scratch: Scratch) -> [String] {
        [
            "--report", "json:\(scratch.path("r.json"))", "--report", "junit:\(scratch.path("r.xml"))", "--report",
            "html:\(scratch.path("r.html"))",
        ]
    }

    static func read(_ scratch: Scratch, code: Int32, out: String, err: String) throws -> Reports {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: scratch.path("r.json"))))
        return Reports(
            code: code, out: out, err: err, json: try JSONValue.parse(Data(bytes)), jsonBytes: bytes,
            junit: try String(contentsOfFile: scratch.path("r.xml"), encoding: .utf8),
            html: try String(contentsOfFile: scratch.path("r.html"), encoding: .utf8))
    }

    /// Runs `conform ARGS --report …` in process from the repository root.
    func conform(_ args: [String]) async throws -> Reports {
        let scratch = try Scratch()
        let run = await conformInProcess(args + Self.reportArgs(scratch))
        return try Self.read(scratch, code: run.code, out: run.out, err: run.err)
    }

    /// The checks every command's reports pass: the exit status, the console's last line, each report's title.
    func expectReports(
        _ r: Reports, command: String, subject: String, outcome: String, code: Int32,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws {
        let headline = "\(subject) — \(outcome)"
        let shown = "\(r.out)\(r.err)"
        #expect(r.code == code, "\(shown)", sourceLocation: sourceLocation)
        #expect(r.out.hasSuffix("Result: \(outcome)\n"), "\(shown)", sourceLocation: sourceLocation)
        // JSON: the command and its headline, the exit code, and the reader `merge` uses takes it back.
        #expect(r.json["command"]?.stringValue == command, sourceLocation: sourceLocation)
        #expect(r.json["headline"]?.stringValue == headline, sourceLocation: sourceLocation)
        #expect(r.json["exitCode"] == .int(Int(code)), sourceLocation: sourceLocation)
        let back = try RunReport.read(bytes: r.jsonBytes, source: "r.json")
        #expect(back.result.command.rawValue == command, sourceLocation: sourceLocation)
        #expect(back.result.headline == headline, sourceLocation: sourceLocation)
        #expect(back.result.status.rawValue == code, sourceLocation: sourceLocation)
        // JUnit: valid against the schema, titled by the command, failures counted.
        try #require(JUnitSchema.isPresent, "junit-10.xsd is missing: run scripts/setup, which fetches it")
        let (valid, output) = try await JUnitSchema.validate(r.junit)
        #expect(valid == 0, "xmllint: \(output)", sourceLocation: sourceLocation)
        #expect(
            r.junit.contains("<testsuites name=\"Conform: \(Escaping.xml(headline))\""), sourceLocation: sourceLocation)
        let root = r.junit.split(separator: "\n").first { $0.hasPrefix("<testsuites ") } ?? ""
        #expect(root.contains(" failures=\"0\" ") == (code != 1), "\(root)", sourceLocation: sourceLocation)
        // HTML: the title and the overall verdict say what the command is.
        #expect(r.html.contains(": \(Escaping.html(headline))</title>"), sourceLocation: sourceLocation)
        #expect(r.html.contains("</span> \(Escaping.html(headline))</p>"), sourceLocation: sourceLocation)
        // Severities only where they mean something: a suite run's expectations.
        #expect(
            r.html.contains("<th scope=\"col\">Severity</th>") == (command == "run" && code == 1),
            sourceLocation: sourceLocation)
    }

    /// What only a suite run's page shows: its columns and legend.
    static let suiteRunColumns = [
        "<th scope=\"col\">Profile</th>", "<th scope=\"col\">Version</th>", "Assumption not met", "(not from a file)",
        "</span> Skipped</th>", "SKIPPED</span> an earlier step",
    ]

    /// The steps of a JSON report.
    func steps(_ r: Reports) -> [JSONValue] {
        (r.json["suites"]?.arrayValue ?? []).flatMap { $0["steps"]?.arrayValue ?? [] }
    }

    @Test func run() async throws {
        let pass = try await conform(["run", "suites/01-registration.yaml", "--no-color"])
        try await expectReports(pass, command: "run", subject: "Conformance run", outcome: "CONFORMS", code: 0)
        let fail = try await conform(
            ["run", "suites/02-login.yaml", "--fault", "ignoreForceDepersonalize", "--no-color"])
        try await expectReports(
            fail, command: "run", subject: "Conformance run", outcome: "DOES NOT CONFORM", code: 1)
        #expect(fail.html.contains("<code>suites/02-login.yaml:98:7</code>"))
        #expect(steps(fail).allSatisfy { $0["check"] == nil && $0["record"] == nil })
    }

    @Test func replay() async throws {
        let pass = try await conform(["replay", Self.sample, "--noise", Self.sampleNoise])
        try await expectReports(pass, command: "replay", subject: "Replay", outcome: "SAME BEHAVIOUR", code: 0)
        // The recorded answer of exchange 5 now says 201: the replay differs there.
        let scratch = try Scratch()
        let tampered = scratch.path("tampered")
        try FileManager.default.createDirectory(atPath: tampered, withIntermediateDirectories: true)
        var lines = try String(contentsOfFile: Self.root + "/" + Self.sample + "/exchanges.jsonl", encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[4] = lines[4].replacingOccurrences(of: #""response":{"status":200"#, with: #""response":{"status":201"#)
        try lines.joined(separator: "\n").write(
            toFile: tampered + "/exchanges.jsonl", atomically: true, encoding: .utf8)
        let fail = try await conform(["replay", tampered, "--noise", Self.sampleNoise])
        try await expectReports(fail, command: "replay", subject: "Replay", outcome: "DIFFERENT BEHAVIOUR", code: 1)
        let failed = steps(fail).filter { $0["verdict"]?.stringValue == "fail" }
        #expect(failed.map { $0["record"]?.stringValue } == ["\(tampered)#5"])
        #expect(failed.first?["location"]?.stringValue == "\(tampered):5:1", "today's form stays for old readers")
        #expect(failed.first?["check"]?.stringValue == "replay difference")
        #expect(fail.html.contains("<dt>Record</dt><dd><code>\(tampered)#5</code>"))
    }

    @Test func diff() async throws {
        let args = ["diff", "--target", "builtin", "--target", "builtin", "--noise", Self.sampleNoise]
        let pass = try await conform(args + [Self.sample])
        try await expectReports(
            pass, command: "diff", subject: "Differential", outcome: "the two implementations behave the same",
            code: 0)
        let fail = try await conform(args + ["--fault-b", "ignoreForceDepersonalize", Self.sample])
        try await expectReports(
            fail, command: "diff", subject: "Differential", outcome: "3 of 16 exchanges differ", code: 1)
        #expect(steps(fail).filter { $0["verdict"]?.stringValue == "fail" }.count == 3)
        // The page shows the flows that differ; the flow that is the same is folded and counted, and no column of a
        // suite run is there.
        #expect(
            fail.html.contains(
                "<details class=\"same-groups\">\n<summary>1 device flow the same (7 exchanges)</summary>"))
        #expect(fail.html.contains("<tr data-suite=\"flow backend\" data-verdict=\"fail\">"))
        let diffOnly = ["<th scope=\"col\">Flow step</th>", "<dt>Flow step</dt>"]
        for suiteRunOnly in Self.suiteRunColumns + diffOnly {
            #expect(!fail.html.contains(suiteRunOnly), "\(suiteRunOnly)")
        }
        #expect(fail.html.contains("</span> Differ</th>"))
    }

    @Test func check() async throws {
        let pass = try await conform(["check", Self.sample])
        try await expectReports(pass, command: "check", subject: "Client check", outcome: "0 violations", code: 0)
        let fail = try await conform(["check", "Tests/ConformCLITests/Cases/traffic-check-violations/trace.jsonl"])
        try await expectReports(fail, command: "check", subject: "Client check", outcome: "8 violations", code: 1)
        // The page shows the exchange that breaks each rule.
        #expect(
            fail.html.contains(
                "<dt>Record</dt><dd><code>Tests/ConformCLITests/Cases/traffic-check-violations/trace.jsonl#11</code>"))
        #expect(fail.html.contains("<section class=\"request\">"))
        #expect(fail.html.contains("forceDepersonalize=0&amp;keepAsLead=0"))
        let broken = steps(fail).filter { $0["verdict"]?.stringValue == "fail" }
        #expect(broken.count == 3)
        // The headline is followed by the rules broken, each with its count; the table is of rules, with none of
        // a suite run's columns.
        #expect(
            fail.html.contains(
                "<li><a href=\"#suite-check-1-registration-step1\"><code>registration-first</code></a> <span class=\"times\">× 6</span></li>"
            ))
        #expect(
            fail.html.contains(
                "<thead><tr><th scope=\"col\">Flow step</th><th scope=\"col\">Rule</th><th scope=\"col\" class=\"n\">Violations</th><th scope=\"col\">Verdict</th></tr></thead>"
            ))
        for suiteRunOnly in Self.suiteRunColumns {
            #expect(!fail.html.contains(suiteRunOnly), "\(suiteRunOnly)")
        }
        #expect(broken.allSatisfy { $0["request"] != nil && $0["check"]?.stringValue == "flow rule" })
    }

    @Test func scan() async throws {
        let pass = try await conform(["scan", "recordings"])
        try await expectReports(pass, command: "scan", subject: "Secret scan", outcome: "0 findings", code: 0)
        let fail = try await conform(["scan", "Tests/ConformCLITests/Cases/traffic-scan-leak/leak.txt"])
        try await expectReports(fail, command: "scan", subject: "Secret scan", outcome: "2 findings", code: 1)
        #expect(
            steps(fail).compactMap { $0["location"]?.stringValue } == [
                "Tests/ConformCLITests/Cases/traffic-scan-leak/leak.txt:2:10",
                "Tests/ConformCLITests/Cases/traffic-scan-leak/leak.txt:3:23",
            ])
        #expect(!fail.html.contains("ana.kovac"), "the page shows the excerpt, never the secret")
    }

    /// `conform mock SUITE` with reports, played by `conform run SUITE` against it. A client that follows the suite
    /// ends the session (`--until-done`); one that does not is followed by Ctrl-C, as a user ends it, so the session
    /// ends on the client's last request and not on a deadline a loaded machine could reach first.
    func mock(_ suite: String, client: String) async throws -> Reports {
        let scratch = try Scratch()
        let until = suite == client ? ["--until-done"] : []
        let child = try await offThePool {
            try ConformProcess(
                ["mock", suite, "--port", "0"] + until + Self.reportArgs(scratch), scratch: scratch, banner: "Mocking ")
        }
        let run = try await ChildProcess.output(
            Self.root + "/.build/debug/conform", ["run", client, "--target", child.baseURL],
            directory: URL(fileURLWithPath: Self.root))
        let ended = try await offThePool { try suite == client ? child.waitForExit() : child.interrupt() }
        var reports = try Self.read(scratch, code: ended.code, out: ended.out, err: ended.err + run.output)
        reports.out = ended.out
        #expect(reports.html.contains("client of \(child.baseURL)"), "the page names the mock's real address")
        return reports
    }

    @Test func mock() async throws {
        let pass = try await mock("suites/02-login.yaml", client: "suites/02-login.yaml")
        try await expectReports(
            pass, command: "mock", subject: "Mock session", outcome: "the client followed the suite", code: 0)
        // The page shows the answers the mock sent.
        #expect(
            pass.html.contains(
                "<section class=\"response\">\n<h4>Response</h4>\n<p class=\"start-line\"><code><strong>200</strong>"))
        #expect(!pass.html.contains("No response."))
        // Another scenario against the mock: its requests do not follow the suite.
        let fail = try await mock("suites/01-registration.yaml", client: "suites/03-logout.yaml")
        try await expectReports(
            fail, command: "mock", subject: "Mock session", outcome: "the client did not follow the suite", code: 1)
        #expect(fail.html.contains("<strong>404</strong>"), "the 404 the mock answered an unplaced request with")
    }

    /// `conform serve --check` with reports: a device's traffic, then SIGINT.
    func serveCheck(switchingUsers: Bool) async throws -> Reports {
        let scratch = try Scratch()
        let child = try await offThePool {
            try ConformProcess(
                ["serve", "--check", "--port", "0", "--out", scratch.path("checked")] + Self.reportArgs(scratch),
                scratch: scratch, banner: "Checking an app against the reference implementation on ")
        }
        let client = DeviceClient(base: child.baseURL)
        let id = try await client.register(token: "fcm-check-token")
        #expect(try await client.personalize(id, user: "cust-ana", email: nil).status == 200)
        // Switching users without forceDepersonalize breaks the rule `user-switch`.
        if switchingUsers { _ = try await client.personalize(id, user: "cust-ivo", email: nil) }
        let result = try await offThePool { try child.interrupt() }
        return try Self.read(scratch, code: result.code, out: result.out, err: result.err)
    }

    @Test func serveCheck() async throws {
        let pass = try await serveCheck(switchingUsers: false)
        try await expectReports(pass, command: "check", subject: "Client check", outcome: "0 violations", code: 0)
        let fail = try await serveCheck(switchingUsers: true)
        try await expectReports(fail, command: "check", subject: "Client check", outcome: "1 violation", code: 1)
        #expect(fail.out.contains("✘ check-2-login › user-switch: "), "\(fail.out)")
        #expect(fail.html.contains("<section class=\"request\">"), "the page shows the exchange that broke the rule")
    }

    @Test func recordWithoutCheckHasNoReportToWrite() async {
        let run = await conformInProcess([
            "record", "--upstream", "http://127.0.0.1:9", "--out", "unused", "--report", "json:unused.json",
        ])
        #expect(run.code == 64)
        #expect(run.err.contains("--report needs --check"), "\(run.err)")
    }
}
