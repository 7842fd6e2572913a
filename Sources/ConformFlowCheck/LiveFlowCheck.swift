import ConformCore
import ConformReport
import ConformTraffic
import Synchronization

/// The flow's rules judged on traffic as it is recorded (`record --check`, `serve --check`, `capture --check`): each
/// record is checked as it comes, a violation told at once, and at the end the whole is one result, the same as
/// `conform check` of the recording gives.
public final class LiveFlowCheck: Sendable {
    /// The application codes the check was told, and which of them the traffic never carried.
    public let watch: ApplicationCodeWatch
    private let state: Mutex<(checker: FlowChecker, violations: [FlowViolation])>
    private let onViolation: @Sendable (FlowViolation) -> Void

    /// A check of `profile`'s flow told `codes` (whose pseudonyms `redactor` gives), handing each violation to
    /// `onViolation` as it is found.
    public init(
        codes: ApplicationCodes, profile: ProtocolProfile, redactor: Redactor?,
        onViolation: @escaping @Sendable (FlowViolation) -> Void
    ) {
        let watch = ApplicationCodeWatch(codes: codes, profile: profile, redactor: redactor)
        self.watch = watch
        self.state = Mutex((FlowChecker(configuration: watch.configuration), []))
        self.onViolation = onViolation
    }

    /// Checks one record as it was written (its exchange redacted, as the recording holds it).
    public func observe(_ record: TraceRecord) {
        if case .exchange(let exchange) = record { watch.observe(exchange) }
        let found = state.withLock { s in
            let found = FlowChecker.attaching(record, to: s.checker.check(record))
            s.violations += found
            return found
        }
        for violation in found { onViolation(violation) }
    }

    /// One warning per application code given that the traffic never carried.
    public var warnings: [String] { watch.warnings }

    /// Everything checked, as the result of `conform check` of the recording at `path`.
    public func result(path: String, exchanges: Int, events: Int = 0, duration: Double) -> RunResult {
        let outcome = state.withLock { $0.checker.outcome($0.violations) }
        let trace = FlowCheckReport.Trace(
            path: path, violations: outcome.violations, notes: outcome.notes, exercised: outcome.exercised,
            exchanges: exchanges, events: events, showedFlow: outcome.showedFlow, judged: outcome.judged)
        return FlowCheckReport.result([trace], rules: watch.configuration.judgedRules, duration: duration)
    }
}
