import ConformCore
import ConformDiagnostics

/// What happened in one step.
///
/// A run keeps every step's result to its end (the reporters write suites from them), so the layout is compact:
/// what the steps of one flow share (suite, flow, file, the suite's reference) is one shared ``Origin``, the
/// counts are 32-bit, and a step's own reference is stored only when it differs from its suite's.
public struct StepResult: Sendable, Hashable {
    /// What kind of check a step is: it decides whether severities mean anything (where a step is, ``Place`` says).
    public enum Check: String, Sendable, Hashable, CaseIterable {
        /// A suite step's expectations (`conform run`): located at `file:line:col`, with severities.
        case suiteExpectation = "suite expectation"
        /// A recorded exchange replayed or sent to two sides: located at the trace record `file#seq`.
        case replayDifference = "replay difference"
        /// A flow rule judged on a client's traffic: located at the trace record `file#seq` that breaks it.
        case flowRule = "flow rule"
        /// A credential found in a file: located at `file:line:col`.
        case secretFinding = "secret finding"
        /// A suite step whose exchange two implementations answered differently (`conform diff` of suites):
        /// located at the step's `file:line:col`, without severities.
        case suiteDifference = "suite difference"
        /// A request a client sent to a mock, judged by the suite's request descriptions (`conform mock`): located
        /// at the step's `file:line:col`, without severities (a request description has none).
        case clientRequest = "client request"

        /// Whether failures carry a severity worth showing (`must`, `should`, `assumed`): only suite expectations
        /// have one; a difference, a broken rule or a secret found is simply a finding.
        public var hasSeverities: Bool { self == .suiteExpectation }
    }

    /// What every step of one flow shares. Make one per flow and hand it to ``init(origin:index:name:mark:spec:verdict:)``
    /// so that the steps hold it once.
    public final class Origin: Sendable, Hashable {
        public let suiteID: String
        public let flow: String
        public let file: String
        /// The suite's reference, which a step without one of its own reports.
        public let spec: SpecReference
        /// What kind of check the flow's steps are.
        public let check: Check

        public init(
            suiteID: String, flow: String, file: String, spec: SpecReference, check: Check = .suiteExpectation
        ) {
            self.suiteID = suiteID
            self.flow = flow
            self.file = file
            self.spec = spec
            self.check = check
        }

        public static func == (lhs: Origin, rhs: Origin) -> Bool {
            lhs === rhs
                || (lhs.suiteID == rhs.suiteID && lhs.flow == rhs.flow && lhs.file == rhs.file && lhs.spec == rhs.spec
                    && lhs.check == rhs.check)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(suiteID)
            hasher.combine(flow)
        }

        func with(suiteID: String? = nil, flow: String? = nil, file: String? = nil, check: Check? = nil) -> Origin {
            Origin(
                suiteID: suiteID ?? self.suiteID, flow: flow ?? self.flow, file: file ?? self.file, spec: spec,
                check: check ?? self.check)
        }
    }

    public private(set) var origin: Origin
    public var suiteID: String {
        get { origin.suiteID }
        set { origin = origin.with(suiteID: newValue) }
    }
    public var flow: String {
        get { origin.flow }
        set { origin = origin.with(flow: newValue) }
    }
    public var file: String {
        get { origin.file }
        set { origin = origin.with(file: newValue) }
    }
    /// What kind of check the step is.
    public var check: Check {
        get { origin.check }
        set { origin = origin.with(check: newValue) }
    }
    /// Where in ``file`` the step is.
    public enum Place: Sendable, Hashable {
        /// A place in a text file (a suite step, a secret found): shown `file:line:col`.
        case source(SourceMark)
        /// A trace record: shown `file#seq`.
        case record(seq: Int)
        /// Nothing in the file to point at (what a whole trace lacks, records that could not be read): shown `file`.
        case none

        /// The place as reports that keep the `file:line:col` form write it: a record's `seq` as the line, nothing
        /// as `0:0`.
        public var mark: SourceMark {
            switch self {
            case .source(let mark): mark
            case .record(let seq): SourceMark(line: seq, column: 1)
            case .none: SourceMark(line: 0, column: 0)
            }
        }
    }

    /// Where the step is: `file:line:col` of a suite step or a text file, `file#seq` of a trace record, or `file`.
    public var location: String {
        switch place {
        case .source(let mark): "\(file):\(mark)"
        case .record(let seq): "\(file)#\(seq)"
        case .none: file
        }
    }
    /// Whether the step is a trace record.
    public var locatesRecord: Bool {
        if case .record = place { return true }
        return false
    }
    /// The step's place in its flow, from 0.
    public var index: Int {
        get { Int(storedIndex) }
        set { storedIndex = Int32(clamping: newValue) }
    }
    public var name: String
    public var place: Place
    /// ``place`` as a `line:col` mark (see ``Place/mark``); setting it makes the place a source mark.
    public var mark: SourceMark {
        get { place.mark }
        set { place = .source(newValue) }
    }
    /// The step's reference, or its suite's when it has none of its own.
    public var spec: SpecReference {
        get { ownSpec.first ?? origin.spec }
        set { ownSpec = newValue == origin.spec ? [] : [newValue] }
    }
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
    public var attempts: Int {
        get { Int(storedAttempts) }
        set { storedAttempts = Int32(clamping: newValue) }
    }
    /// How many times `--retry` sent the step's exchange again after a gateway's 502/503/504 page or a connection
    /// refused or reset (``RetryTransport``): 0 when it was answered first time.
    public var retries: Int {
        get { Int(storedRetries) }
        set { storedRetries = Int32(clamping: newValue) }
    }
    /// Wall time of the step in seconds.
    public var duration: Double
    private var ownSpec: [SpecReference]
    private var storedIndex: Int32
    private var storedAttempts: Int32
    private var storedRetries: Int32 = 0
    /// (Declared last, beside the 32-bit counts, so that it takes no word of its own.)
    public var verdict: Verdict

    public init(
        suiteID: String, flow: String, index: Int, name: String, file: String, mark: SourceMark, spec: SpecReference,
        verdict: Verdict, request: HTTPRequest? = nil, response: HTTPResponse? = nil, failures: [CheckFailure] = [],
        error: String? = nil, attempts: Int = 0, duration: Double = 0, check: Check = .suiteExpectation
    ) {
        self.init(
            suiteID: suiteID, flow: flow, index: index, name: name, file: file, place: .source(mark), spec: spec,
            verdict: verdict, request: request, response: response, failures: failures, error: error,
            attempts: attempts, duration: duration, check: check)
    }

    public init(
        suiteID: String, flow: String, index: Int, name: String, file: String, place: Place, spec: SpecReference,
        verdict: Verdict, request: HTTPRequest? = nil, response: HTTPResponse? = nil, failures: [CheckFailure] = [],
        error: String? = nil, attempts: Int = 0, duration: Double = 0, check: Check = .suiteExpectation
    ) {
        self.init(
            origin: Origin(suiteID: suiteID, flow: flow, file: file, spec: spec, check: check), index: index,
            name: name, place: place,
            spec: spec, verdict: verdict, request: request, response: response, failures: failures, error: error,
            attempts: attempts, duration: duration)
    }

    /// A result that shares `origin` with the other steps of its flow.
    public init(
        origin: Origin, index: Int, name: String, mark: SourceMark, spec: SpecReference, verdict: Verdict,
        request: HTTPRequest? = nil, response: HTTPResponse? = nil, failures: [CheckFailure] = [],
        error: String? = nil, attempts: Int = 0, duration: Double = 0
    ) {
        self.init(
            origin: origin, index: index, name: name, place: .source(mark), spec: spec, verdict: verdict,
            request: request, response: response, failures: failures, error: error, attempts: attempts,
            duration: duration)
    }

    /// A result that shares `origin` with the other steps of its flow, at `place`.
    public init(
        origin: Origin, index: Int, name: String, place: Place, spec: SpecReference, verdict: Verdict,
        request: HTTPRequest? = nil, response: HTTPResponse? = nil, failures: [CheckFailure] = [],
        error: String? = nil, attempts: Int = 0, duration: Double = 0
    ) {
        self.origin = origin
        self.storedIndex = Int32(clamping: index)
        self.name = name
        self.place = place
        self.ownSpec = spec == origin.spec ? [] : [spec]
        self.verdict = verdict
        self.exchange = request == nil && response == nil ? .none : .inline(request, response)
        self.failures = failures
        self.errors = error.map { [StepError(.text, $0)] } ?? []
        self.storedAttempts = Int32(clamping: attempts)
        self.duration = duration
    }

    /// Equal when every public part is: how the parts are stored (which reference sits in the origin) does not count.
    public static func == (lhs: StepResult, rhs: StepResult) -> Bool {
        lhs.suiteID == rhs.suiteID && lhs.flow == rhs.flow && lhs.file == rhs.file && lhs.index == rhs.index
            && lhs.name == rhs.name && lhs.place == rhs.place && lhs.spec == rhs.spec && lhs.verdict == rhs.verdict
            && lhs.exchange == rhs.exchange && lhs.failures == rhs.failures && lhs.errors == rhs.errors
            && lhs.attempts == rhs.attempts && lhs.duration == rhs.duration && lhs.check == rhs.check
            && lhs.retries == rhs.retries
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(suiteID)
        hasher.combine(flow)
        hasher.combine(index)
        hasher.combine(name)
        hasher.combine(verdict)
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
