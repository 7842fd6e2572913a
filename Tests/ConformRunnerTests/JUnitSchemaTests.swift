import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformTestSupport
import ConformYAML
import Foundation
import Testing

/// The JUnit report validates against `junit-10.xsd`, the schema Jenkins' xUnit plugin reads JUnit with.
@Suite struct JUnitSchemaTests {
    static let schema = JUnitSchema.file

    func validate(_ document: String) async throws -> (code: Int32, output: String) {
        try await JUnitSchema.validate(document)
    }

    @Test func aRunWithEveryVerdictValidates() async throws {
        #expect(
            FileManager.default.fileExists(atPath: Self.schema.path),
            "junit-10.xsd is missing: run scripts/setup, which fetches it")
        let report = JUnitReporter(sink: MemorySink()).render(try await certificationRun())
        let (code, output) = try await validate(report)
        #expect(code == 0, "xmllint: \(output)")
        // The step's location is still there, in the text of what did not pass.
        #expect(report.contains("<failure message="))
        #expect(report.contains(">suites/02-login.yaml:9:5"))
    }

    @Test func theValidatorRefusesWhatTheSchemaForbids() async throws {
        // A testcase with a `file` attribute, as older reports had: the check must be able to fail.
        let report = JUnitReporter(sink: MemorySink()).render(try await certificationRun())
            .replacingOccurrences(of: "<testcase ", with: "<testcase file=\"x.yaml\" ")
        let (code, output) = try await validate(report)
        #expect(code != 0)
        #expect(output.contains("file"), "xmllint: \(output)")
    }
}

extension JUnitSchemaTests {
    @Test func aReplayResultValidates() async throws {
        let collector = ResultCollector()
        let suite = Suite(id: "flow d1", title: "Replay, device flow d1", flows: [], file: "trace.jsonl")
        let verdicts: [Verdict] = [.pass, .fail, .error, .skipped]
        for (i, verdict) in verdicts.enumerated() {
            var step = StepResult(
                suiteID: "", flow: "d1", index: 0, name: "exchange \(i + 1): GET /x", file: "trace.jsonl",
                mark: SourceMark(line: i + 1, column: 1), spec: SpecReference(), verdict: verdict)
            if verdict == .fail {
                step.failures = [
                    CheckFailure(
                        severity: .must, mismatches: [Mismatch(path: "status", expected: "200", actual: "500")])
                ]
            }
            if verdict == .skipped { step.error = "cannot judge: no response recorded" }
            if verdict == .error {
                step.errors = [StepError(.replay, "no answer", fields: ["notice": "TLS: the certificate expired"])]
            }
            // Every verdict with a retry: the step's line of output and the run's totals stay within the schema.
            step.retries = 1
            collector.add(step, to: suite)
        }
        let result = collector.result(.replay, target: "builtin", duration: 0, sortedByLine: true)
        let report = JUnitReporter(sink: MemorySink()).render(result)
        let (code, output) = try await validate(report)
        #expect(code == 0, "xmllint: \(output)")
        #expect(report.contains(">trace.jsonl:2:1\nmust status: expected 200, got 500"))
        #expect(report.components(separatedBy: "<system-out>retried 1 time</system-out>").count == 5)
        #expect(report.contains(#"<property name="retries" value="4"/>"#))
        #expect(report.contains(#"<property name="notice.1" value="warning: TLS: the certificate expired (1 step)"/>"#))
    }
}
