import ConformDiagnostics
import Synchronization

/// A one-line counter on a terminal for long runs (a replay's exchanges): every 500, and at least every quarter
/// second so a slow paced run shows it is alive; cleared before any other line is written.
public final class ProgressLine: Sendable {
    private let sink: any TextSink
    private let what: String
    private let enabled: Bool
    private let state = Mutex((count: 0, shown: ContinuousClock.now))

    /// Counts on `sink` (standard error), as "N `what`", when `enabled` (an interactive terminal, not `--quiet`).
    public init(sink: any TextSink, counting what: String, enabled: Bool) {
        self.sink = sink
        self.what = what
        self.enabled = enabled
    }

    public func tick() {
        guard enabled else { return }
        let now = ContinuousClock.now
        let shown = state.withLock { s -> Int? in
            s.count += 1
            guard s.count % 500 == 0 || now - s.shown >= .milliseconds(250) else { return nil }
            s.shown = now
            return s.count
        }
        if let shown { sink.write(TerminalText.control("\r") + TerminalText("\(shown) \(what)")) }
    }

    public func clear() { if enabled { sink.write(.control("\r\u{1B}[K")) } }
}
