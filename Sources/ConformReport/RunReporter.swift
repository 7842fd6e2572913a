/// Consumes run events.
public protocol RunReporter: Sendable {
    func handle(_ event: RunEvent)
    /// Whether a step that passed shows in what this reporter writes; a source may leave such steps unmade when no
    /// reporter shows them (``Session/showsPassedSteps``). True unless a reporter says otherwise.
    var showsPassedSteps: Bool { get }
}

extension RunReporter {
    public var showsPassedSteps: Bool { true }
}

/// Sends every event to several reporters in order.
public struct ReporterFanout: RunReporter {
    public var reporters: [any RunReporter]

    public init(_ reporters: [any RunReporter]) { self.reporters = reporters }

    public func handle(_ event: RunEvent) { for r in reporters { r.handle(event) } }
}

/// A reporter that writes one document for the whole run, once it has finished, step by step into its sink.
public protocol DocumentReporter: RunReporter {
    var sink: any TextSink { get }
    /// Writes the document for `result` to `sink`.
    func write(_ result: RunResult, to sink: any TextSink)
}

extension DocumentReporter {
    public func handle(_ event: RunEvent) {
        if case .runFinished(let result) = event { write(result, to: sink) }
    }

    /// The whole document as text, for tests and small results.
    public func text(_ result: RunResult) -> String {
        let memory = MemorySink()
        write(result, to: memory)
        return memory.text
    }
}
