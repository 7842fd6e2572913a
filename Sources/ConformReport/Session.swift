import ConformDiagnostics
import Foundation
import Synchronization

/// One command's session, the same for every command and for `ConformTesting`: a source of steps emits its events,
/// the session hands each to the console and to every report file as it comes, puts the files in place once they
/// are complete, and gives the exit status from the result (``RunStatus``, the one rule).
///
/// ```swift
/// let session = Session(console: ConsoleReporter(sink: out), reports: [ReportTarget(kind: .json, file: url)])
/// let outcome = await session.run { events in await runner.run(plan, events: events) }
/// exit(outcome.status.rawValue)
/// ```
public struct Session: Sendable {
    /// Where the events are shown as they come (a ``ConsoleReporter``), if anywhere.
    public var console: (any RunReporter)?
    /// The report files to write.
    public var reports: [ReportTarget]
    /// Which shard of a whole plan the session is, for the JSON report.
    public var placement: ShardPlacement?
    /// What the run covers, given to the result every reporter sees.
    public var scope: RunScope?
    /// Where the run comes from, given to the result every reporter sees, with the time it finished.
    public var provenance: RunProvenance?
    /// The credentials the run was given, which every reporter hides (``RunResult/secrets``).
    public var secrets: [String]
    /// The protocol's credential headers, which every reporter hides (``RunResult/credentialHeaders``).
    public var credentialHeaders: [String]

    public init(
        console: (any RunReporter)?, reports: [ReportTarget] = [], placement: ShardPlacement? = nil,
        scope: RunScope? = nil, provenance: RunProvenance? = nil, secrets: [String] = [],
        credentialHeaders: [String] = []
    ) {
        self.credentialHeaders = credentialHeaders
        self.console = console
        self.reports = reports
        self.placement = placement
        self.scope = scope
        self.provenance = provenance
        self.secrets = secrets
    }

    /// `result` with the session's scope and provenance, finished now, unless it carries its own.
    public func stamped(_ result: RunResult, finishedAt: Date = Date()) -> RunResult {
        var result = result
        if result.scope == nil { result.scope = scope }
        if result.secrets.isEmpty { result.secrets = secrets }
        if result.credentialHeaders.isEmpty { result.credentialHeaders = credentialHeaders }
        if result.provenance == nil, var provenance {
            provenance.finishedAt = finishedAt
            result.provenance = provenance
        }
        return result
    }

    /// What came of a session.
    public struct Outcome: Sendable {
        /// The result, when the source gave one.
        public var result: RunResult?
        /// What kept the session from writing its reports.
        public var problems: [Diagnostic]

        /// The exit status: the result's, unless a report could not be written (then the session could not run).
        public var status: RunStatus {
            guard problems.isEmpty, let result else { return .cannotRun }
            return result.status
        }
    }

    /// Opens the report files, runs `source` with a handler that hands every event to the console and to the
    /// reports, then puts the reports in place. `source` emits its events as its steps finish and returns the result;
    /// the session emits `runFinished` with it unless the source did. An error `source` throws ends the session, and
    /// no report file replaces an earlier one.
    public func run(
        _ source: (_ events: @escaping @Sendable (RunEvent) -> Void) async throws -> RunResult
    ) async rethrows -> Outcome {
        let files: [ReportFile]
        switch ReportFile.open(reports) {
        case .success(let opened): files = opened
        case .failure(let failure): return Outcome(result: nil, problems: [failure.diagnostic])
        }
        var reporters: [any RunReporter] = console.map { [$0] } ?? []
        for file in files { reporters.append(file.target.reporter(sink: file.sink, placement: placement)) }
        let fanout = ReporterFanout(reporters)
        let finished = Atomic(false)
        // Reporters and the outcome see the result stamped with the time the run finished.
        let finishedAt = Mutex<Date?>(nil)
        let result = try await source { event in
            guard case .runFinished(let result) = event else { return fanout.handle(event) }
            finished.store(true, ordering: .relaxed)
            let now = Date()
            finishedAt.withLock { $0 = now }
            fanout.handle(.runFinished(stamped(result, finishedAt: now)))
        }
        let final = stamped(result, finishedAt: finishedAt.withLock { $0 } ?? Date())
        if !finished.load(ordering: .relaxed) { fanout.handle(.runFinished(final)) }
        let problem = ReportFile.finish(files)
        return Outcome(result: final, problems: problem.map { [$0] } ?? [])
    }

    /// The session of a result made whole before it (a check, a scan, a mock session): each group's steps handed on
    /// as if they had just finished, then the group, then the result.
    public func run(_ result: RunResult) async -> Outcome {
        await run { events in
            for suite in result.suites {
                for step in suite.steps { events(.stepFinished(step)) }
                events(.suiteFinished(suite))
            }
            return result
        }
    }

    /// Whether the session writes report files (which show every step's exchange).
    public var writesReports: Bool { !reports.isEmpty }

    /// Whether a step that passed shows anywhere: in a report file, or on a console that shows passed steps. When
    /// not, a source that makes many (a replay's exchanges) may count them instead
    /// (``ResultCollector/countPass(retries:toGroupWithID:made:)``).
    public var showsPassedSteps: Bool { writesReports || (console?.showsPassedSteps ?? false) }
}
