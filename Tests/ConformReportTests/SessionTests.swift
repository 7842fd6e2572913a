import ConformCore
import ConformDiagnostics
import ConformReport
import ConformTestSupport
import Foundation
import Testing

/// The one session of every command: events to the console and the reports, the files put in place, the status.
@Suite struct SessionTests {
    /// A reporter that keeps the events it saw, by kind.
    final class Recorder: RunReporter, @unchecked Sendable {
        private let lock = NSLock()
        private var names: [String] = []
        var seen: [String] {
            lock.lock()
            defer { lock.unlock() }
            return names
        }
        func handle(_ event: RunEvent) {
            let name =
                switch event {
                case .runStarted: "start"
                case .suiteStarted: "suite"
                case .stepFinished: "step"
                case .suiteFinished: "suite done"
                case .runFinished: "finish"
                }
            lock.lock()
            names.append(name)
            lock.unlock()
        }
    }

    @Test func eventsReachTheConsoleAndTheReportsAndTheStatusIsTheResults() async throws {
        let scratch = try Scratch()
        let json = scratch.url.appendingPathComponent("r.json")
        let recorder = Recorder()
        let session = Session(console: recorder, reports: [ReportTarget(kind: .json, file: json)])
        let result = CommandResultTests.result(.check, [.pass, .fail])
        let outcome = await session.run { events in
            for step in result.steps { events(.stepFinished(step)) }
            return result
        }
        #expect(outcome.status == .mismatch)
        #expect(outcome.problems.isEmpty)
        // The session ends what the source did not: one runFinished.
        #expect(recorder.seen == ["step", "step", "finish"])
        let back = try RunReport.read(Data(contentsOf: json), source: "r.json").result
        #expect(back.command == .check)
        #expect(back.status == .mismatch)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["r.json"])
    }

    @Test func aSourceThatFinishesItselfIsNotFinishedTwice() async {
        let recorder = Recorder()
        let result = CommandResultTests.result(.run, [.pass])
        let outcome = await Session(console: recorder).run { events in
            events(.runFinished(result))
            return result
        }
        #expect(outcome.status == .conforms)
        #expect(recorder.seen == ["finish"])
    }

    @Test func aReportThatCannotBeWrittenStopsTheSessionBeforeItRuns() async throws {
        let scratch = try Scratch()
        let nowhere = scratch.url.appendingPathComponent("missing/r.xml")
        let session = Session(console: nil, reports: [ReportTarget(kind: .junit, file: nowhere, shownPath: "r.xml")])
        var ran = false
        let outcome = await session.run { _ in
            ran = true
            return CommandResultTests.result(.run, [.pass])
        }
        #expect(!ran)
        #expect(outcome.status == .cannotRun)
        #expect(outcome.problems.map(\.id) == [.reportUnwritable])
        #expect(outcome.problems.first?.message.hasPrefix("cannot write the junit report to r.xml: ") == true)
    }

    @Test func anErrorOfTheSourceLeavesEarlierReportsInPlace() async throws {
        struct Broken: Error {}
        let scratch = try Scratch()
        let html = scratch.url.appendingPathComponent("r.html")
        try Data("earlier".utf8).write(to: html)
        let session = Session(console: nil, reports: [ReportTarget(kind: .html, file: html)])
        await #expect(throws: Broken.self) {
            _ = try await session.run { _ -> RunResult in throw Broken() }
        }
        #expect(try String(contentsOf: html, encoding: .utf8) == "earlier")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["r.html"])
    }
}
