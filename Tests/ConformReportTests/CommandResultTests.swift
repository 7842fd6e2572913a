import ConformCore
import ConformDiagnostics
import ConformReport
import Foundation
import Synchronization
import Testing

/// One result model for every command: its words, its locations, its exit status, and the JSON it round-trips through.
@Suite struct CommandResultTests {
    /// A result of `command` with one group whose steps have `verdicts`, each failure with one mismatch.
    static func result(_ command: RunResult.Command, _ verdicts: [Verdict]) -> RunResult {
        let group = ResultGroup(kind: .deviceFlow, id: "flow d1", title: "device flow d1", file: "trace.jsonl")
        let steps = verdicts.enumerated().map { i, verdict in
            var step = StepResult(
                suiteID: group.id, flow: "d1", index: i, name: "exchange \(i + 1): GET /x", file: "trace.jsonl",
                place: [.replayDifference, .flowRule].contains(command.check)
                    ? .record(seq: i + 1) : .source(SourceMark(line: i + 1, column: 1)),
                spec: SpecReference(), verdict: verdict, check: command.check)
            if verdict == .fail {
                step.failures = [
                    CheckFailure(
                        severity: .must, mismatches: [Mismatch(path: "status", expected: "200", actual: "500")])
                ]
            }
            return step
        }
        return RunResult(
            command: command, suites: [SuiteResult(group: group, steps: steps, duration: 0)], duration: 0, target: "t")
    }

    @Test func eachCommandSaysItsVerdictInItsOwnWords() {
        #expect(Self.result(.run, [.pass]).headline == "Conformance run — CONFORMS")
        #expect(Self.result(.run, [.pass, .fail]).headline == "Conformance run — DOES NOT CONFORM")
        #expect(Self.result(.run, [.error]).headline == "Conformance run — COULD NOT RUN")
        #expect(Self.result(.replay, [.pass]).headline == "Replay — SAME BEHAVIOUR")
        #expect(Self.result(.replay, [.pass, .fail]).headline == "Replay — DIFFERENT BEHAVIOUR")
        #expect(Self.result(.replay, [.pass, .skipped]).headline == "Replay — CANNOT JUDGE")
        #expect(Self.result(.diff, [.pass]).headline == "Differential — the two implementations behave the same")
        #expect(Self.result(.diff, [.pass, .fail]).headline == "Differential — 1 of 2 exchanges differs")
        #expect(Self.result(.diff, [.fail, .fail, .fail]).headline == "Differential — 3 of 3 exchanges differ")
        #expect(Self.result(.check, [.pass]).headline == "Client check — 0 violations")
        #expect(Self.result(.check, [.fail, .pass, .fail]).headline == "Client check — 2 violations")
        #expect(Self.result(.check, [.fail]).headline == "Client check — 1 violation")
        #expect(Self.result(.mock, [.pass]).headline == "Mock session — the client followed the suite")
        #expect(Self.result(.mock, [.fail]).headline == "Mock session — the client did not follow the suite")
        #expect(Self.result(.scan, [.pass]).headline == "Secret scan — 0 findings")
        #expect(Self.result(.scan, [.fail, .fail]).headline == "Secret scan — 2 findings")
    }

    /// A run judged again by `verify` is titled by the verification, with the run's own verdict beside it, and shown
    /// as an error when tampered with or not verified, amber when partial, by its run's verdict when certifiable.
    @Test func aVerificationSaysWhatItFoundAndTheRunsVerdict() {
        var run = Self.result(.run, [.pass])
        run.scope = RunScope(bundledSuites: 22, bundledSuitesRun: 22)
        func verified(_ result: RunResult, _ found: BundleVerification) -> (String, Verdict) {
            var result = result
            result.verification = found
            return (result.headline, found.verdict(of: result))
        }
        func found(
            _ verdict: BundleVerification.Verdict, _ reasons: [String] = [], accepted: Bool = false
        ) -> BundleVerification {
            BundleVerification(
                verdict: verdict, reasons: reasons, acceptedPartial: accepted, signature: .unsigned, line: "")
        }
        #expect(verified(run, found(.certifiable)) == ("Verification — VERIFIED certifiable, CONFORMS", .pass))
        #expect(run.commandHeadline == "Conformance run — CONFORMS")
        var failing = Self.result(.run, [.pass, .fail])
        failing.scope = run.scope
        #expect(
            verified(failing, found(.certifiable)) == ("Verification — VERIFIED certifiable, DOES NOT CONFORM", .fail))
        var shard = run
        shard.scope = RunScope(bundledSuites: 22, bundledSuitesRun: 1)
        #expect(
            verified(shard, found(.partial, ["1 of 22 bundled suites"]))
                == (
                    "Verification — VERIFIED partial (1 of 22 bundled suites), CONFORMS; no certificate",
                    .assumptionNotMet
                ))
        #expect(
            verified(shard, found(.partial, ["1 of 22 bundled suites"], accepted: true)).0
                == "Verification — VERIFIED partial (1 of 22 bundled suites), CONFORMS; accepted with --allow-partial")
        #expect(
            verified(run, found(.tampered, ["a report does not follow from the bundle's log"]))
                == ("Verification — TAMPERED (a report does not follow from the bundle's log)", .error))
        #expect(
            verified(run, found(.notVerified, ["the run judged again could not run"]))
                == ("Verification — NOT VERIFIED (the run judged again could not run)", .error))
    }

    /// A client check names the rules it found broken, in flow order, with their violations counted.
    @Test func aClientCheckNamesTheRulesItFoundBroken() {
        let group = ResultGroup(kind: .flowStep, id: "check-1", title: "t", step: "1-registration", file: "t.jsonl")
        let mismatch = Mismatch(path: "exchange 3", expected: "x", actual: "y")
        let steps = [("registration-first", 3), ("user-switch", 0), ("backend-credentials", 1)].enumerated().map {
            i, rule in
            var step = StepResult(
                suiteID: group.id, flow: "t.jsonl", index: i, name: "\(rule.0): what it requires", file: "t.jsonl",
                mark: SourceMark(line: 1, column: 1), spec: SpecReference(), verdict: rule.1 > 0 ? .fail : .pass,
                check: .flowRule)
            if rule.1 > 0 {
                step.failures = [CheckFailure(severity: .must, mismatches: Array(repeating: mismatch, count: rule.1))]
            }
            return step
        }
        let check = RunResult(
            command: .check, suites: [SuiteResult(group: group, steps: steps, duration: 0)], duration: 0, target: "t")
        #expect(check.violatedRules.map(\.rule) == ["registration-first", "backend-credentials"])
        #expect(check.violatedRules.map(\.violations) == [3, 1])
        #expect(check.headline == "Client check — 4 violations")
        #expect(check.reportedVerdicts == [.pass, .fail, .notExercised, .error])
        #expect(Self.result(.run, [.pass]).reportedVerdicts == [.pass, .fail, .assumptionNotMet, .skipped, .error])
        #expect(Self.result(.diff, [.pass]).reportedVerdicts == [.pass, .fail, .skipped, .error])
        #expect(
            Self.result(.run, [.notExercised]).reportedVerdicts.contains(.notExercised), "a count is never left out")
    }

    @Test func nothingJudgedIsNeverAPass() {
        for command in RunResult.Command.allCases {
            let empty = RunResult(command: command, suites: [], duration: 0, target: "t")
            #expect(empty.status == .cannotRun, "\(command)")
            // A run and an exploration send requests, which could not run; the others judge what they were given.
            let sends = command == .run || command == .explore
            #expect(empty.outcome == (sends ? "COULD NOT RUN" : "CANNOT JUDGE"), "\(command)")
        }
    }

    @Test func aTraceRecordIsLocatedByItsSeqAndASuiteStepByLineAndColumn() {
        let replayed = Self.result(.replay, [.fail]).steps[0]
        #expect(replayed.location == "trace.jsonl#1")
        #expect(!replayed.check.hasSeverities)
        let run = StepResult(
            suiteID: "s", flow: "main", index: 0, name: "n", file: "suite.yaml", mark: SourceMark(line: 9, column: 5),
            spec: SpecReference(), verdict: .pass)
        #expect(run.location == "suite.yaml:9:5")
        #expect(run.check == .suiteExpectation && run.check.hasSeverities)
        // A step about a whole trace points at no record of it: the file alone, never a made-up `#0`.
        var whole = replayed
        whole.place = .none
        #expect(whole.location == "trace.jsonl")
    }

    @Test func everyPlaceReadsBackFromTheJSONReport() throws {
        var result = Self.result(.replay, [.pass, .fail, .skipped])
        result.suites[0].steps[2].place = .none
        let text = JSONReporter(sink: MemorySink(), deterministic: true).text(result)
        let steps = try #require(
            try JSONValue.parse(Data(text.utf8))["suites"]?.arrayValue?.first?["steps"]?.arrayValue)
        #expect(steps.map { $0["location"]?.stringValue } == ["trace.jsonl:1:1", "trace.jsonl:2:1", "trace.jsonl:0:0"])
        #expect(steps.map { $0["record"]?.stringValue } == ["trace.jsonl#1", "trace.jsonl#2", nil])
        let back = try RunReport.read(Data(text.utf8), source: "r.json").result
        #expect(back.steps.map(\.place) == [.record(seq: 1), .record(seq: 2), .none])
        let run = Self.result(.run, [.pass])
        let runBack = try RunReport.read(
            Data(JSONReporter(sink: MemorySink(), deterministic: true).text(run).utf8), source: "r.json"
        ).result
        #expect(runBack.steps.map(\.place) == [.source(SourceMark(line: 1, column: 1))])
    }

    @Test func theJSONReportCarriesTheCommandGroupAndCheckAndReadsBack() throws {
        let result = Self.result(.check, [.pass, .fail])
        let text = JSONReporter(sink: MemorySink(), deterministic: true).text(result)
        let json = try JSONValue.parse(Data(text.utf8))
        #expect(json["command"]?.stringValue == "check")
        #expect(json["headline"]?.stringValue == "Client check — 1 violation")
        let suite = try #require(json["suites"]?.arrayValue?.first)
        #expect(suite["group"]?.stringValue == "device flow")
        let step = try #require(suite["steps"]?.arrayValue?.last)
        #expect(step["location"]?.stringValue == "trace.jsonl:2:1", "the form readers of older reports parse")
        #expect(step["record"]?.stringValue == "trace.jsonl#2")
        #expect(step["check"]?.stringValue == "flow rule")
        let back = try RunReport.read(Data(text.utf8), source: "r.json").result
        #expect(back.command == .check)
        #expect(back.suites[0].group.kind == .deviceFlow)
        #expect(back.steps.map(\.check) == [.flowRule, .flowRule])
        #expect(back.steps[1].location == "trace.jsonl#2")
        #expect(back.headline == result.headline)
    }

    @Test func aReportOfTodaysFormatReadsAsASuiteRun() throws {
        // What reports looked like before they named their command, group and check.
        var text = JSONReporter(sink: MemorySink(), deterministic: true).text(Self.result(.run, [.pass]))
        for member in [#"  "command": "run",\#n"#, #"  "headline": "Conformance run — CONFORMS",\#n"#] {
            #expect(text.contains(member))
            text = text.replacingOccurrences(of: member, with: "")
        }
        text = text.replacingOccurrences(of: #""group": "device flow","#, with: "")
            .replacingOccurrences(of: #""check": "suite expectation","#, with: "")
        let back = try RunReport.read(Data(text.utf8), source: "old.json").result
        #expect(back.command == .run)
        #expect(back.steps[0].check == .suiteExpectation)
    }

    @Test func aCommandThatContradictsTheKindIsRefused() throws {
        let text = JSONReporter(sink: MemorySink(), deterministic: true).text(Self.result(.replay, [.pass]))
            .replacingOccurrences(of: #""command": "replay""#, with: #""command": "scan""#)
        #expect(throws: RunReportError.self) { try RunReport.read(Data(text.utf8), source: "r.json") }
    }

    @Test func severitiesAppearOnlyWhereTheyMeanSomething() {
        let replay = HTMLReporter(sink: MemorySink(), date: "d", deterministic: true).render(
            Self.result(.replay, [.fail]))
        #expect(!replay.contains("<th scope=\"col\">Severity</th>"))
        #expect(replay.contains("<dt>Record</dt><dd><code>trace.jsonl#1</code>"))
        #expect(replay.contains("<title>t: Replay — DIFFERENT BEHAVIOUR</title>"))
        let console = MemorySink()
        var reporter = ConsoleReporter(sink: console)
        reporter.streamsSteps = true
        let result = Self.result(.replay, [.fail])
        for step in result.steps { reporter.handle(.stepFinished(step)) }
        reporter.handle(.runFinished(result))
        #expect(console.text.contains("    differs status\n"), "\(console.text)")
        #expect(!console.text.contains("must"), "\(console.text)")
        #expect(console.text.hasSuffix("Result: DIFFERENT BEHAVIOUR\n"), "\(console.text)")
        let junit = JUnitReporter(sink: MemorySink(), deterministic: true).render(result)
        #expect(junit.contains("type=\"replay difference\""), "\(junit)")
    }

    @Test func mergedShardsKeepTheirCommandAndMixedCommandsAreRefused() throws {
        func shard(_ index: Int, _ command: RunResult.Command) throws -> RunReport {
            let placement = ShardPlacement(
                shard: try #require(Shard(index: index, count: 2)), planSuites: 2, positions: [index - 1])
            let text = JSONReporter(sink: MemorySink(), placement: placement).text(Self.result(command, [.pass]))
            return try RunReport.read(Data(text.utf8), source: "shard\(index).json")
        }
        let merged = try RunReport.merge([shard(1, .replay), shard(2, .replay)])
        #expect(merged.result.command == .replay)
        #expect(merged.result.headline == "Replay — SAME BEHAVIOUR")
        #expect(throws: RunReportError.self) { try RunReport.merge([shard(1, .replay), shard(2, .diff)]) }
    }

    @Test func passesNotKeptAreStillCounted() {
        let collector = ResultCollector(keepsPasses: false)
        let group = ResultGroup(kind: .deviceFlow, id: "flow d1", title: "d1", file: "t")
        for step in Self.result(.replay, [.pass, .pass, .fail]).steps { collector.add(step, to: group) }
        let result = collector.result(.replay, target: "t", duration: 0)
        #expect(result.steps.count == 1)
        #expect(result.stepCount == 3)
        #expect(result.counts == [.pass: 2, .fail: 1])
        #expect(result.suites.count == 1)
    }

    @Test func stepsThatDidNotPassAreKeptUpToTheBoundAndCountedBeyond() {
        let shown = Mutex(0)
        let collector = ResultCollector(keepsPasses: false, maxKeptSteps: 3) { event in
            if case .stepFinished = event { shown.withLock { $0 += 1 } }
        }
        let group = ResultGroup(kind: .deviceFlow, id: "flow d1", title: "d1", file: "t")
        let verdicts: [Verdict] = Array(repeating: .fail, count: 500) + Array(repeating: .error, count: 200) + [.pass]
        for step in Self.result(.replay, verdicts).steps { collector.add(step, to: group) }
        let result = collector.result(.replay, target: "t", duration: 0)
        // Three steps are kept whatever the length; every step is counted, and every one was handed on as it came.
        #expect(result.steps.count == 3)
        #expect(result.othersNotKept == [.fail: 497, .error: 200])
        #expect(result.counts == [.pass: 1, .fail: 500, .error: 200])
        #expect(collector.counts == result.counts, "a command's summary line counts what its result counts")
        #expect(result.stepCount == 701)
        #expect(shown.withLock { $0 } == 701)
        #expect(result.status == .mismatch)
    }

    /// A pass counted without its step leaves the result, the counts and the group order what adding the step would
    /// have: two collectors, one fed steps, one fed counts for the passes, give equal results.
    @Test func aPassCountedWithoutItsStepCountsAsTheStepWould() {
        let added = ResultCollector(keepsPasses: false)
        let counted = ResultCollector(keepsPasses: false)
        let groups = ["flow a", "flow b", "flow c"].map { ResultGroup(kind: .deviceFlow, id: $0, title: $0, file: "t") }
        var steps = Self.result(.replay, [.pass, .fail, .pass, .pass, .error, .pass]).steps
        steps[2].retries = 2
        for (index, step) in steps.enumerated() {
            // Group c's first step passes: it must still be opened, and after b.
            let group = groups[[0, 1, 2, 0, 1, 2][index]]
            added.add(step, to: group)
            if step.verdict == .pass {
                counted.countPass(retries: step.retries, toGroupWithID: group.id) { group }
            } else {
                counted.add(step, to: group)
            }
        }
        let expected = added.result(.replay, target: "t", duration: 0)
        let result = counted.result(.replay, target: "t", duration: 0)
        #expect(result.suites.map(\.group.id) == ["flow a", "flow b", "flow c"])
        #expect(result.suites.map(\.group.id) == expected.suites.map(\.group.id))
        #expect(result.counts == [.pass: 4, .fail: 1, .error: 1])
        #expect(result.counts == expected.counts)
        #expect(counted.counts == added.counts)
        #expect(result.passesNotKept == expected.passesNotKept)
        #expect(result.retriesNotKept == 2 && result.retriedStepsNotKept == 1)
        #expect(result.retriesNotKept == expected.retriesNotKept)
        #expect(result.steps.map(\.name) == expected.steps.map(\.name))
    }
}
