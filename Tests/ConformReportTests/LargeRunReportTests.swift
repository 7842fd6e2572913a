import ConformCore
import ConformDiagnostics
import ConformReport
import Foundation
import Synchronization
import Testing

/// A large run's reports and passes over its steps hold a bounded part of it at a time.
@Suite struct LargeRunReportTests {
    /// Every piece written, in order.
    final class PieceSink: TextSink {
        let pieces = Mutex<[String]>([])
        func write(_ text: String) { pieces.withLock { $0.append(text) } }
    }

    /// One suite of `count` steps, every tenth failed with a refused credential.
    static func result(steps count: Int) -> RunResult {
        let group = ResultGroup(kind: .suite, id: "large", title: "a large suite", file: "large.yaml")
        let steps = (0..<count).map { i in
            var step = StepResult(
                suiteID: group.id, flow: "f", index: i, name: "step \(i) of a long flow", file: "large.yaml",
                place: .source(SourceMark(line: i + 1, column: 1)), spec: SpecReference(),
                verdict: i % 10 == 0 ? .error : .pass, check: .suiteExpectation)
            if i % 10 == 0 { step.errors = [StepError(.credentialsRefused, "the implementation refused appCode")] }
            return step
        }
        return RunResult(
            command: .run, suites: [SuiteResult(group: group, steps: steps, duration: 0)], duration: 0, target: "t")
    }

    @Test func theJUnitReportOfALargeSuiteIsWrittenInPiecesAndWhole() {
        let result = Self.result(steps: 3_000)
        let sink = PieceSink()
        JUnitReporter(sink: MemorySink(), deterministic: true).write(result, to: sink)
        let pieces = sink.pieces.withLock { $0 }
        let whole = pieces.joined()
        #expect(whole == JUnitReporter(sink: MemorySink(), deterministic: true).render(result))
        #expect(whole.components(separatedBy: "<testcase ").count - 1 == 3_000)
        #expect(whole.hasSuffix("</testsuites>\n"))
        #expect(pieces.count > 4, "a suite of 3,000 steps is handed on in more than one piece")
        #expect(pieces.allSatisfy { $0.utf8.count < (1 << 16) + 4_096 }, "\(pieces.map(\.utf8.count).max() ?? 0)")
    }

    @Test func eachStepVisitsEveryStepInOrder() {
        var result = Self.result(steps: 25)
        result.suites.append(result.suites[0])
        #expect(Array(result.eachStep) == result.steps)
        #expect(result.eachStep.reduce(0) { n, _ in n + 1 } == 50)
        let notices = RunNotice.gathered(from: result.eachStep)
        #expect(notices == RunNotice.gathered(from: result.steps))
    }
}
