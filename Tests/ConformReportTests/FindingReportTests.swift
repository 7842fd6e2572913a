import ConformCore
import ConformDiagnostics
import ConformReport
import Foundation
import Testing

/// A broken rule (a client check's violation, a scan's secret) is a finding, not an expected value against an actual
/// one: every reporter shows its rule, place, requirement, what was found and the help, and the JSON report reads back.
@Suite struct FindingReportTests {
    static let finding = Finding(
        rule: "logout-depersonalize", place: "exchange 4 (M8), flow d1",
        requirement: "the device is depersonalized after <logout>", found: "M8 updates the user 'ana' after logout",
        help: "call depersonalize first")

    /// A check of one rule broken twice and one rule that held.
    static func result() -> RunResult {
        let group = ResultGroup(kind: .flowStep, id: "check-3-logout", title: "flow step 3", file: "trace.jsonl")
        var broken = StepResult(
            suiteID: group.id, flow: "trace.jsonl", index: 0, name: "logout-depersonalize", file: "trace.jsonl",
            place: .record(seq: 4), spec: SpecReference(), verdict: .fail, check: .flowRule)
        var second = finding
        second.place = "exchange 9 (M8), flow d1"
        broken.failures = [CheckFailure(severity: .must, findings: [finding, second])]
        let held = StepResult(
            suiteID: group.id, flow: "trace.jsonl", index: 1, name: "user-switch", file: "trace.jsonl",
            place: .record(seq: 2), spec: SpecReference(), verdict: .pass, check: .flowRule)
        return RunResult(
            command: .check, suites: [SuiteResult(group: group, steps: [broken, held], duration: 0)], duration: 0,
            target: "trace.jsonl")
    }

    @Test func eachFindingCountsAndReadsBackFromTheJSONReport() throws {
        let result = Self.result()
        #expect(result.headline == "Client check — 2 violations")
        let text = JSONReporter(sink: MemorySink(), deterministic: true).text(result)
        let json = try JSONValue.parse(Data(text.utf8))
        let failure = try #require(json["suites"]?.arrayValue?.first?["steps"]?.arrayValue?.first?["failures"]?[0])
        #expect(failure["mismatches"]?.arrayValue?.isEmpty == true)
        let first = try #require(failure["findings"]?.arrayValue?.first)
        #expect(first["rule"]?.stringValue == "logout-depersonalize")
        #expect(first["place"]?.stringValue == "exchange 4 (M8), flow d1")
        #expect(first["found"]?.stringValue == "M8 updates the user 'ana' after logout")
        #expect(first["help"]?.stringValue == "call depersonalize first")
        let back = try RunReport.read(Data(text.utf8), source: "r.json").result
        #expect(back.steps[0].failures == result.steps[0].failures)
        #expect(back.headline == "Client check — 2 violations")
    }

    @Test func aReportWithoutFindingsStillReads() throws {
        let text = JSONReporter(sink: MemorySink(), deterministic: true).text(Self.result())
        // A report from before findings had a member of their own: the member renamed away.
        let older = text.replacingOccurrences(of: "\"findings\"", with: "\"earlier\"")
        #expect(older != text)
        let back = try RunReport.read(Data(older.utf8), source: "r.json").result
        #expect(back.steps[0].failures.map(\.findings) == [[]])
    }

    @Test func theConsoleJUnitAndHTMLSayTheRuleWhatWasFoundAndTheHelp() {
        let result = Self.result()
        let sink = MemorySink()
        let console = ConsoleReporter(sink: sink)
        console.handle(.suiteFinished(result.suites[0]))
        console.handle(.runFinished(result))
        #expect(sink.text.contains("violation logout-depersonalize at exchange 4 (M8), flow d1\n"))
        #expect(sink.text.contains("requires: the device is depersonalized after <logout>\n"))
        #expect(sink.text.contains("found:    M8 updates the user 'ana' after logout\n"))
        #expect(sink.text.contains("help:     call depersonalize first\n"))
        #expect(!sink.text.contains("expected:"))

        let junit = JUnitReporter(sink: MemorySink(), deterministic: true).render(result)
        #expect(junit.contains("message=\"logout-depersonalize at exchange 4 (M8), flow d1: M8 updates the user"))
        #expect(junit.contains("exchange 9 (M8), flow d1: M8 updates"))

        let html = HTMLReporter(sink: MemorySink(), date: "d", deterministic: true).render(result)
        #expect(html.contains("<caption>Findings</caption>"))
        #expect(html.contains("the device is depersonalized after &lt;logout&gt;"))
        #expect(html.contains("help: call depersonalize first"))
        #expect(!html.contains("<caption>Differences</caption>"))
    }
}
