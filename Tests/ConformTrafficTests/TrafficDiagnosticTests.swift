import ConformDiagnostics
import ConformMobileMessaging
import ConformTestSupport
import Foundation
import Testing

@testable import ConformFlowCheck
@testable import ConformTraffic

/// The traffic library's problems are catalogued diagnostics, rendered by the one renderer.
@Suite struct TrafficDiagnosticTests {
    @Test func aBrokenHAREntryIsHarEntryInvalid() throws {
        let har = #"{"log": {"version": "1.2", "entries": [{"request": 7}]}}"#
        do {
            let document = try HARDocument(Data(har.utf8), file: "app.har")
            _ = try document.exchange(0)
            Issue.record("expected a failure")
        } catch {
            #expect(error.diagnostic.id == .harEntryInvalid)
            #expect(error.diagnostic.file == "app.har")
            #expect(error.description == error.diagnostic.rendered(sourceLine: nil))
        }
    }

    @Test func aBrokenRecordingLineIsRecordingLineInvalid() throws {
        let scratch = try Scratch()
        let path = scratch.url.appendingPathComponent("exchanges.jsonl").path
        try Data("{not json\n".utf8).write(to: URL(fileURLWithPath: path))
        let reader = try RecordingReader(path: path)
        #expect(try reader.next() == nil)
        let error = try #require(reader.skipped.first)
        #expect(error.diagnostic.id == .recordingLineInvalid)
        #expect(error.diagnostic.mark?.line == 1)
        #expect(error.description.hasPrefix("\(path):1:"))
    }

    @Test func aWholeFileRecordingProblemHasNoMark() {
        let error = RecordingError(file: "r.jsonl", message: "cannot read", help: "check permissions")
        #expect(error.diagnostic.id == .recordingInvalid)
        #expect(error.diagnostic.mark == nil)
        #expect(error.description == "r.jsonl: error: cannot read\nhelp: check permissions")
        #expect(error.warning == "r.jsonl: warning: cannot read\nhelp: check permissions")
    }

    @Test func aFlowViolationNamesTheExchangeAndCarriesTheRule() {
        let violation = FlowViolation(
            rule: .logoutDepersonalize, seq: 4, flow: "f", endpoint: "event:login",
            step: FlowRule.logoutDepersonalize.step,
            message: "login before depersonalize", help: "depersonalize at logout")
        let diagnostic = violation.diagnostic(file: "trace.jsonl")
        #expect(diagnostic.id == .flowViolation)
        #expect(diagnostic.code == FlowRule.logoutDepersonalize.id)
        #expect(
            diagnostic.rendered(sourceLine: nil)
                == "trace.jsonl: event 4 (login, step \(FlowRule.logoutDepersonalize.step), flow f): "
                + "error[\(FlowRule.logoutDepersonalize.id)]: login before depersonalize\nhelp: depersonalize at logout"
        )
    }
}
