import ConformCLI
import ConformCore
import ConformReport
import ConformRunner
import ConformTestSupport
import Foundation
import Testing

/// `conform check --report` writes the same JUnit, JSON and HTML reports as `conform run`, one test case per trace
/// and rule.
@Suite struct CheckReportTests {
    static let root = SuitesBundle.root
    static let trace = "Tests/ConformCLITests/Cases/traffic-check-violations/trace.jsonl"

    @Test func aViolatingTraceGivesReportsThatSayWhichRuleBrokeWhere() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let junit = directory.appendingPathComponent("check.xml")
        let json = directory.appendingPathComponent("check.json")
        let html = directory.appendingPathComponent("check.html")
        let out = MemorySink()
        let io = CommandIO(
            out: out, err: MemorySink(), color: false, environment: [:], currentDirectory: Self.root.path)
        let code = await ConformCommand.main(
            [
                "conform", "check", Self.trace, "--report", "junit:\(junit.path)", "--report", "json:\(json.path)",
                "--report", "html:\(html.path)",
            ], io: io)
        #expect(code == 1)
        let report = try JSONValue.parse(Data(contentsOf: json))
        let steps = (report["suites"]?.arrayValue ?? []).flatMap { $0["steps"]?.arrayValue ?? [] }
        let failed = steps.filter { $0["verdict"]?.stringValue == "fail" }
        #expect(failed.contains { $0["name"]?.stringValue?.hasPrefix("registration-first:") == true })
        #expect(steps.contains { $0["verdict"]?.stringValue == "pass" }, "rules the trace keeps pass")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains("<testsuite name=\"check-1-registration\""))
        #expect(xml.contains("exchange 3 (M4), flow 7b9c87e0-4e02-4c95-a95f-b829abc94e86"))
        let page = try String(contentsOf: html, encoding: .utf8)
        #expect(page.contains("registration-first"))
        // Rules the trace never exercised: skipped with what was missing in JUnit, "not exercised" everywhere else.
        #expect(
            xml.contains(
                "<skipped message=\"not exercised: the traffic holds no login app event on a known device whose outcome it shows"
            ))
        #expect(xml.contains("skipped=\"1\""))
        try #require(JUnitSchema.isPresent, "junit-10.xsd is missing: run scripts/setup, which fetches it")
        let (valid, output) = try await JUnitSchema.validate(xml)
        #expect(valid == 0, "\(output)")
        #expect(report["counts"]?["not exercised"] == .int(11))
        #expect(report["traffic"]?["rulesExercised"] == .int(6))
        #expect(page.contains("NOT EXERCISED"))
        #expect(page.contains("15 exchanges, 0 app events, 6 of 17 rules exercised"))
        #expect(out.text.contains("Summary: 15 exchanges, 0 app events, 6 of 17 rules exercised; "))
        #expect(out.text.contains("11 not exercised"))
    }

    /// The sample recording holds no app event: the rules it exercised pass, the event rules are not exercised, and
    /// none of them reads as a pass.
    @Test func aConformingTraceReportsItsExercisedRulesPassedAndTheRestNotExercised() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("check.json")
        let io = CommandIO(
            out: MemorySink(), err: MemorySink(), color: false, environment: [:], currentDirectory: Self.root.path)
        let code = await ConformCommand.main(
            ["conform", "check", "recordings/personalization-flow", "--report", "json:\(json.path)"], io: io)
        #expect(code == 0)
        let report = try JSONValue.parse(Data(contentsOf: json))
        let steps = (report["suites"]?.arrayValue ?? []).flatMap { $0["steps"]?.arrayValue ?? [] }
        #expect(!steps.isEmpty)
        var verdicts: [String: String] = [:]
        for step in steps {
            verdicts[String((step["name"]?.stringValue ?? "").prefix { $0 != ":" })] = step["verdict"]?.stringValue
        }
        #expect(verdicts["registration-first"] == "pass")
        #expect(verdicts["personalize-identity"] == "pass")
        #expect(verdicts["login-personalize"] == "not exercised")
        #expect(verdicts["logout-depersonalize"] == "not exercised")
        #expect(Set(verdicts.values) == ["pass", "not exercised"])
        #expect(report["traffic"]?["rulesExercised"] == .int(steps.filter { $0["verdict"] == "pass" }.count))
    }
}
