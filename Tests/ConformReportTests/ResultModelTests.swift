import ConformCore
import ConformDiagnostics
import ConformReport
import Testing

/// The one result model: verdicts, exit statuses by kind, and results gathered from commands other than `run`.
@Suite struct ResultModelTests {
    @Test func verdictsKeepTheirReportSpellingAndRank() {
        #expect(
            Verdict.allCases.map(\.rawValue) == [
                "pass", "not exercised", "assumption not met", "skipped", "fail", "error",
            ])
        #expect(Verdict.allCases.sorted() == [.pass, .notExercised, .skipped, .assumptionNotMet, .fail, .error])
        #expect(Verdict.allCases.filter { !$0.judged } == [.notExercised, .skipped])
        #expect(Verdict(rawValue: "passed") == nil)
    }

    @Test func rulesNotExercisedAreNeverAPassAndAloneCannotJudge() {
        for kind in [RunResult.Kind.conformance, .comparison] {
            #expect(RunStatus(kind: kind, counts: [.notExercised: 12]) == .cannotRun)
            #expect(RunStatus(kind: kind, counts: [.notExercised: 3, .skipped: 2]) == .cannotRun)
            #expect(RunStatus(kind: kind, counts: [.notExercised: 3, .fail: 1]) == .mismatch)
        }
        #expect(RunStatus(kind: .conformance, counts: [.notExercised: 3, .pass: 9]) == .conforms)
        // A group of rules none of which was exercised reads as such; one exercised rule that held is a pass.
        let origin = StepResult.Origin(
            suiteID: "check-2-login", flow: "t.jsonl", file: "t.jsonl", spec: SpecReference(), check: .flowRule)
        func step(_ verdict: Verdict) -> StepResult {
            StepResult(
                origin: origin, index: 0, name: "r", mark: SourceMark(line: 1, column: 1), spec: SpecReference(),
                verdict: verdict)
        }
        let group = ResultGroup(kind: .flowStep, id: "check-2-login", title: "t", file: "t.jsonl")
        #expect(SuiteResult(group: group, steps: [step(.notExercised)], duration: 0).verdict == .notExercised)
        #expect(SuiteResult(group: group, steps: [step(.notExercised), step(.pass)], duration: 0).verdict == .pass)
        #expect(SuiteResult(group: group, steps: [step(.notExercised), step(.fail)], duration: 0).verdict == .fail)
        #expect(SuiteResult(group: group, steps: [step(.skipped)], duration: 0).verdict == .pass)
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
