import ConformDiagnostics

/// A conformance suite: metadata, variables and the flows of exchanges that certify one step of the flow.
public struct Suite: Sendable, Hashable {
    /// Stable identifier, e.g. `login-personalize`.
    public var id: String
    public var title: String
    /// The flow step it certifies, e.g. `2-login`.
    public var step: String
    public var spec: SpecReference
    /// The application mode the suite needs, one of its protocol profile's `applicationModes` (Mobile Messaging's:
    /// `all`, `jwt`, `restricted` or `restricted-access`).
    public var profile: String
    public var tags: [String]
    /// Variables in declaration order; values may use templates and generators.
    public var variables: [Variable]
    /// Independent flows; each runs its steps in order, flows run concurrently.
    public var flows: [Flow]
    /// Where the suite came from.
    public var file: String
    /// SHA-256 of the file's bytes, hex, when loaded from disk; identifies the suite version in reports.
    public var contentHash: String
    /// Every name the suite declares (variables, captures) or uses in a template, as the loader found them: what a
    /// `--var` may set.
    public var names: Set<String> = []

    public init(
        id: String, title: String, step: String = "", spec: SpecReference = SpecReference(), profile: String = "all",
        tags: [String] = [], variables: [Variable] = [], flows: [Flow], file: String = "<memory>",
        contentHash: String = ""
    ) {
        self.id = id
        self.title = title
        self.step = step
        self.spec = spec
        self.profile = profile
        self.tags = tags
        self.variables = variables
        self.flows = flows
        self.file = file
        self.contentHash = contentHash
    }

    /// Every step of every flow.
    public var stepCount: Int { flows.reduce(0) { $0 + $1.steps.count } }
}

/// Where a suite or step rests in the specification: a section of the flow and decision ids.
public struct SpecReference: Sendable, Hashable {
    /// A section of the flow or the API reference, e.g. `flow step 2; API M4`.
    public var section: String
    /// Decision ids from decisions.md, e.g. `D2`.
    public var decisions: [String]

    public init(section: String = "", decisions: [String] = []) {
        self.section = section
        self.decisions = decisions
    }

    public var isEmpty: Bool { section.isEmpty && decisions.isEmpty }

    /// `flow step 2; API M4 [D2, D3]`.
    public var summary: String {
        let d = decisions.isEmpty ? "" : "[\(decisions.joined(separator: ", "))]"
        return [section, d].filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// A suite variable with its default value (a template, rendered once per run).
public struct Variable: Sendable, Hashable {
    public var name: String
    public var defaultValue: TemplateValue
    public var mark: SourceMark

    public init(name: String, defaultValue: TemplateValue, mark: SourceMark = SourceMark(line: 0, column: 0)) {
        self.name = name
        self.defaultValue = defaultValue
        self.mark = mark
    }
}

/// An ordered list of steps, run one after the other: one device, or the backend of one scenario.
public struct Flow: Sendable, Hashable {
    public var name: String
    public var steps: [Step]

    public init(name: String, steps: [Step]) {
        self.name = name
        self.steps = steps
    }
}

/// One step of a flow: an exchange with expectations, or a wait for a named event.
public struct Step: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        case exchange(Exchange)
        case wait(WaitSpec)
    }

    public var name: String
    public var action: Action
    /// Extra reference for this step, added to the suite's.
    public var spec: SpecReference {
        get { specStorage.first ?? SpecReference() }
        set { specStorage = newValue.isEmpty ? [] : [newValue] }
    }
    public var mark: SourceMark
    /// Most steps have no reference of their own: an empty array takes one word and allocates nothing, where an
    /// inline reference would take three on every step a suite holds.
    private var specStorage: [SpecReference]

    public init(
        name: String, action: Action, spec: SpecReference = SpecReference(),
        mark: SourceMark = SourceMark(line: 0, column: 0)
    ) {
        self.name = name
        self.action = action
        self.specStorage = spec.isEmpty ? [] : [spec]
        self.mark = mark
    }
}

/// Waits until another flow of the suite emits a named event, such as `registrationUpdated`.
public struct WaitSpec: Sendable, Hashable {
    public var event: String
    /// The flow expected to emit it; `nil` accepts any flow.
    public var flow: String?
    public var timeout: Duration

    public init(event: String, flow: String? = nil, timeout: Duration = .seconds(10)) {
        self.event = event
        self.flow = flow
        self.timeout = timeout
    }
}

/// A request, what its response must look like, what to capture, and optional retrying.
public struct Exchange: Sendable, Hashable {
    public var request: RequestSpec
    /// Groups of checks, each with its severity.
    public var checks: [CheckGroup]
    public var captures: [Capture]
    /// The named event emitted when this exchange passes, e.g. `registrationUpdated`.
    public var emits: String?
    public var eventually: Eventually? {
        get { eventuallyStorage.first }
        set { eventuallyStorage = newValue.map { [$0] } ?? [] }
    }
    /// A control: the exchange repeats until this holds, and every check group must hold on every response seen
    /// until then. It is how a suite asserts that something did *not* happen: only once a later positive control
    /// has arrived did the thing checked against have its chance.
    public var until: ResponseSpec? {
        get { untilStorage.first }
        set { untilStorage = newValue.map { [$0] } ?? [] }
    }
    /// The rarely given parts, each in an array that is empty (and allocates nothing) when the part is absent:
    /// a suite holds every step in memory, and an inline optional would cost its full size on every step.
    private var eventuallyStorage: [Eventually]
    private var untilStorage: [ResponseSpec]

    public init(
        request: RequestSpec, checks: [CheckGroup] = [], captures: [Capture] = [], emits: String? = nil,
        eventually: Eventually? = nil, until: ResponseSpec? = nil
    ) {
        self.request = request
        self.checks = checks
        self.captures = captures
        self.emits = emits
        eventuallyStorage = eventually.map { [$0] } ?? []
        untilStorage = until.map { [$0] } ?? []
    }
}

/// Repeat the exchange until its checks pass (or, with an `until` control, until the control holds) or the
/// window closes.
public struct Eventually: Sendable, Hashable {
    public var timeout: Duration
    public var interval: Duration
    /// A templated window (`"{{ asyncWindow }}"`), rendered and parsed when the step runs; replaces `timeout`.
    public var window: Template?
    public var mark: SourceMark

    public init(
        timeout: Duration = .seconds(5), interval: Duration = .milliseconds(200), window: Template? = nil,
        mark: SourceMark = SourceMark(line: 0, column: 0)
    ) {
        self.timeout = timeout
        self.interval = interval
        self.window = window
        self.mark = mark
    }

    /// The window for this run: `timeout`, or the rendered `window` template.
    public func resolvedTimeout(in scope: TemplateScope) throws(TemplateError) -> Duration {
        guard let window else { return timeout }
        let text = try scope.renderText(window)
        guard let d = DurationText.parse(text), d >= interval else {
            throw TemplateError(
                message: "the eventually window '\(window.source)' is '\(text)', not a duration from "
                    + "\(DurationText.format(interval)) to 24h",
                help: "give the variable a duration such as 10s or 500ms (--var NAME=10s)")
        }
        return d
    }
}

/// How much a failed check weighs.
public struct Severity: RawRepresentable, Sendable, Hashable, Comparable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A protocol requirement: failing it is a violation.
    public static let must = Severity(rawValue: "must")
    /// A recommendation: failing it is reported and fails the run, marked as such.
    public static let should = Severity(rawValue: "should")
    /// A decision taken where the sources are silent: failing it is "assumption not met".
    public static let assumed = Severity(rawValue: "assumed")

    private var rank: Int { self == .must ? 2 : self == .should ? 1 : 0 }
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// A response expectation with one severity (and, for `assumed`, the decision it rests on).
public struct CheckGroup: Sendable, Hashable {
    public var severity: Severity
    public var decision: String?
    public var expectation: ResponseSpec

    public init(severity: Severity, decision: String? = nil, expectation: ResponseSpec) {
        self.severity = severity
        self.decision = decision
        self.expectation = expectation
    }
}

/// A value captured from a response for later steps.
///
/// Like a ``ResponseSpec`` it holds no place in its file, so steps that capture the same share one list.
public struct Capture: Sendable, Hashable {
    public enum Source: Sendable, Hashable {
        case json(JSONPath)
        /// A path with wildcards (`$.payloads[*].messageId`): the list of every value it matches, possibly empty.
        case matches(JSONPathPattern)
        case header(String)
        case status
    }

    public var name: String
    public var source: Source

    public init(name: String, source: Source) {
        self.name = name
        self.source = source
    }
}
