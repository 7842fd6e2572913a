import ConformCore
import ConformDiagnostics
import ConformReport
import Testing

/// The one result model: verdicts, exit statuses by kind, and results gathered from commands other than `run`.
@Suite struct ResultModelTests {
    @Test func verdictsKeepTheirReportSpellingAndRank() {
        #expect(Verdict.allCases.map(\.rawValue) == ["pass", "assumption not met", "skipped", "fail", "error"])
        #expect(Verdict.allCases.sorted() == [.pass, .skipped, .assumptionNotMet, .fail, .error])
        #expect(Verdict(rawValue: "passed") == nil)
    }

    @Test(arguments: [
        // (pass, fail, error, skipped) → conformance, comparison
        ([1, 0, 0, 0], RunStatus.conforms, RunStatus.conforms),
        ([1, 1, 0, 0], .mismatch, .mismatch),
        ([1, 0, 1, 0], .cannotRun, .mismatch),
        ([0, 0, 1, 0], .cannotRun, .cannotRun),
        ([0, 1, 1, 0], .cannotRun, .cannotRun),
        ([1, 0, 0, 1], .conforms, .cannotRun),
        ([1, 1, 0, 1], .mismatch, .mismatch),
        // Nothing judged is never a pass.
        ([0, 0, 0, 0], .cannotRun, .cannotRun),
    ])
    func statusByKind(counts: [Int], conformance: RunStatus, comparison: RunStatus) {
        let byVerdict: [Verdict: Int] = [.pass: counts[0], .fail: counts[1], .error: counts[2], .skipped: counts[3]]
        #expect(RunStatus(kind: .conformance, counts: byVerdict) == conformance)
        #expect(RunStatus(kind: .comparison, counts: byVerdict) == comparison)
    }

    @Test func aCollectorGroupsStepsBySuiteInArrivalOrderAndSortsThemByLine() async {
        let collector = ResultCollector()
        func suite(_ id: String) -> Suite { Suite(id: id, title: id, flows: [], file: "t.jsonl") }
        func step(_ flow: String, _ seq: Int, _ verdict: Verdict) -> StepResult {
            StepResult(
                suiteID: "ignored", flow: flow, index: 99, name: "exchange \(seq)", file: "t.jsonl",
                mark: SourceMark(line: seq, column: 1), spec: SpecReference(), verdict: verdict)
        }
        await withTaskGroup(of: Void.self) { group in
            for (flow, seqs) in [("b", [4, 2, 6]), ("a", [3, 1, 5])] {
                group.addTask {
                    for seq in seqs { collector.add(step(flow, seq, seq == 5 ? .fail : .pass), to: suite(flow)) }
                }
            }
        }
        let result = collector.result(.replay, target: "t", duration: 1, sortedByLine: true)
        #expect(Set(result.suites.map(\.group.id)) == ["a", "b"])
        let a = result.suites.first { $0.group.id == "a" }
        #expect(a?.steps.map(\.mark.line) == [1, 3, 5])
        #expect(a?.steps.map(\.index) == [0, 1, 2])
        #expect(a?.steps.allSatisfy { $0.suiteID == "a" } == true)
        #expect(result.counts == [.pass: 5, .fail: 1])
        #expect(result.status == .mismatch)
    }
}
