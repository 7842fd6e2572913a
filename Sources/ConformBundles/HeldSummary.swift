import ConformReport
import Synchronization

/// A console that holds back the run's summary (its verdict) until ``release()``: `run --bundle` shows the verdict
/// only once the bundle is sealed, so that a run that gives no bundle (exit 2) never shows one.
public final class HeldSummary: RunReporter {
    let inner: any RunReporter
    let held = Mutex<RunResult?>(nil)

    public init(_ inner: any RunReporter) { self.inner = inner }

    public func handle(_ event: RunEvent) {
        guard case .runFinished(let result) = event else { return inner.handle(event) }
        held.withLock { $0 = result }
    }

    /// Shows the summary held back, once.
    public func release() {
        guard
            let result = held.withLock({ held in
                defer { held = nil }; return held
            })
        else { return }
        inner.handle(.runFinished(result))
    }
}
