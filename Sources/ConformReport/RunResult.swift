import ConformCore
import ConformDiagnostics
import ConformYAML

/// What happened in one step.
public struct StepResult: Sendable, Hashable {
    public var suiteID: String
    public var flow: String
    public var index: Int
    public var name: String
    public var file: String
    public var mark: SourceMark
    public var spec: SpecReference
    public var verdict: Verdict
    /// The last request sent, when there was an exchange (read back from a spool when the step was spooled).
    public var request: HTTPRequest? {
        get { exchange.parts.0 }
        set { exchange = .inline(newValue, exchange.parts.1) }
    }
    /// The response received.
    public var response: HTTPResponse? {
        get { exchange.parts.1 }
        set { exchange = .inline(exchange.parts.0, newValue) }
    }
    /// Where the exchange is kept: a boxed pair in memory, or a spool on disk; one word either way.
    private var exchange: ExchangeStorage
    public var failures: [CheckFailure]
    /// Why there is no response, why the step could not run, or what more its verdict needs said, part by part.
    public var errors: [StepError]
    /// ``errors`` as the one line reports show (the parts joined by "; "); setting it replaces them with one part
    /// of kind ``StepError/Kind/text``.
    public var error: String? {
        get { errors.isEmpty ? nil : errors.map(\.message).joined(separator: StepError.separator) }
        set { errors = newValue.map { [StepError(.text, $0)] } ?? [] }
    }
    public var attempts: Int
    /// Wall time of the step in seconds.
    public var duration: Double

    public init(
        suiteID: String, flow: String, index: Int, name: String, file: String, mark: SourceMark, spec: SpecReference,
        verdict: Verdict, request: HTTPRequest? = nil, response: HTTPResponse? = nil, failures: [CheckFailure] = [],
        error: String? = nil, attempts: Int = 0, duration: Double = 0
    ) {
        self.suiteID = suiteID
        self.flow = flow
        self.index = index
        self.name = name
        self.file = file
        self.mark = mark
        self.spec = spec
        self.verdict = verdict
        self.exchange = request == nil && response == nil ? .none : .inline(request, response)
        self.failures = failures
        self.errors = error.map { [StepError(.text, $0)] } ?? []
        self.attempts = attempts
        self.duration = duration
    }
}

/// Where a step's exchange is kept.
enum ExchangeStorage: Sendable, Hashable {
    case none
    indirect case inline(HTTPRequest?, HTTPResponse?)
    case spooled(ExchangeSpool.Ref)

    var parts: (HTTPRequest?, HTTPResponse?) {
        switch self {
        case .none: (nil, nil)
        case .inline(let request, let response): (request, response)
        case .spooled(let ref): ref.spool.load(ref)
        }
    }
}

extension StepResult {
    /// This step with its exchange moved to `spool`, leaving a file offset in memory; unchanged when the step
    /// has no exchange or the spool cannot be written.
    public func spooled(into spool: ExchangeSpool) -> StepResult {
        guard case .inline(let request, let response) = exchange,
            let ref = spool.append(request: request, response: response)
        else { return self }
        var out = self
        out.exchange = .spooled(ref)
        return out
    }

    /// This step without its exchange when it passed: for runs whose reports show exchanges only of the steps
    /// that did not pass (the console).
    public func droppingExchangeIfPassed() -> StepResult {
        guard verdict == .pass else { return self }
        var out = self
        out.exchange = .none
        return out
    }

    /// Whether the step kept an exchange, in memory or spooled.
    public var hasExchange: Bool { exchange != .none }
}

/// A suite's steps, in flow and step order, and its overall verdict.
public struct SuiteResult: Sendable, Hashable {
    public var suite: Suite
    public var steps: [StepResult]
    public var duration: Double

    public init(suite: Suite, steps: [StepResult], duration: Double) {
        self.suite = suite
        self.steps = steps
        self.duration = duration
    }

    /// The worst step verdict; `pass` for a suite with no steps.
    public var verdict: Verdict {
        let worst = steps.map(\.verdict).max() ?? .pass
        return worst == .skipped ? .pass : worst
    }
}

/// The whole run: a suite run, or the results of a check, replay, diff or mock session in the same shape.
public struct RunResult: Sendable, Hashable {
    /// How the verdicts add up to an exit status (``RunStatus``).
    public enum Kind: Sendable, Hashable {
        /// Suite runs, client checks and mock sessions: any step that could not run makes the run unable to judge.
        case conformance
        /// Replays and diffs, one step per compared exchange: exchanges without an answer only make the whole
        /// unable to judge when nothing was answered; `skipped` steps are exchanges the input cannot judge.
        case comparison
    }

    public var suites: [SuiteResult]
    public var duration: Double
    public var target: String
    public var kind: Kind
    /// How many times the run played its plan (`conform run --repeat N`); each step keeps its worst verdict.
    public var repetitions = 1
    /// The most repetitions a run may have (`--repeat` and reports read back).
    public static let maxRepetitions = 1000
    /// The steps whose verdict changed between repetitions.
    public var flaky: [FlakyStep] = []

    public init(suites: [SuiteResult], duration: Double, target: String, kind: Kind = .conformance) {
        self.suites = suites
        self.duration = duration
        self.target = target
        self.kind = kind
    }

    public var steps: [StepResult] { suites.flatMap(\.steps) }

    /// How many steps the run holds.
    public var stepCount: Int { suites.reduce(0) { $0 + $1.steps.count } }

    /// Number of steps with each verdict.
    public var counts: [Verdict: Int] {
        var out: [Verdict: Int] = [:]
        for suite in suites { for step in suite.steps { out[step.verdict, default: 0] += 1 } }
        return out
    }

    /// What the run means for the process: see ``RunStatus/init(_:)``.
    public var status: RunStatus { RunStatus(self) }

    /// 0 conforms, 1 at least one must/should mismatch, 2 cannot run.
    public var exitCode: Int32 { status.rawValue }
}

/// What the runner reports as it goes; reporters consume these.
public enum RunEvent: Sendable {
    case runStarted(RunPlanSummary)
    case suiteStarted(Suite)
    case stepFinished(StepResult)
    case suiteFinished(SuiteResult)
    case runFinished(RunResult)
}

/// The parts of a plan reporters need before results arrive.
public struct RunPlanSummary: Sendable, Hashable {
    public var suiteCount: Int
    public var stepCount: Int
    public var target: String

    public init(suiteCount: Int, stepCount: Int, target: String) {
        self.suiteCount = suiteCount
        self.stepCount = stepCount
        self.target = target
    }
}
