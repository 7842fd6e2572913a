import ConformDiagnostics
import ConformYAML
import Foundation

/// Loads suites from YAML, collecting every problem in a file as a diagnostic with file, line and column.
public struct SuiteLoader: Sendable {
    public var limits: YAMLLimits
    /// The protocol the suites are written for: its bases are names every suite may use without declaring them,
    /// its functions are callable from templates, and its application modes are what `profile:` may name.
    public var profile: ProtocolProfile

    /// Whether steps become model steps as the parser completes each (the default: a file's whole tree is never
    /// held), or only once the whole tree is built. Both give the same suite and the same diagnostics.
    public var streamsSteps = true
    /// Whether streamed steps are built on a thread of their own while the parser reads on: `nil` (the default)
    /// for files of ``stepThreadMinimumBytes`` and more. Either way the suite and the diagnostics are the same.
    public var buildsOnAThread: Bool?
    /// Files from this size have their steps built on a thread of their own by default; a smaller one loads in
    /// less time than a thread takes to start.
    public static let stepThreadMinimumBytes = 32 * 1024

    public init(limits: YAMLLimits = .default, profile: ProtocolProfile = .none) {
        self.limits = limits
        self.profile = profile
    }

    /// The lists of steps: a suite's `steps`, and each flow's under `flows`.
    static let stepLists = YAML.ItemStream(paths: [["steps"], ["flows", nil]])

    /// Reads and loads the suite at `path`.
    public func load(path: String) throws(YAMLParseFailure) -> Suite {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw YAMLParseFailure([
                Diagnostic(
                    .fileUnreadable, file: path, mark: SourceMark(line: 1, column: 1), message: "cannot read the file",
                    help: "check that the path exists and is readable")
            ])
        }
        return try load(bytes: [UInt8](data), file: path)
    }

    /// Loads a suite from bytes named `file` in diagnostics. A caller that hands the bytes over (`consume`) lets
    /// them go as soon as the parser is done, before the flows are put together.
    public func load(bytes: consuming [UInt8], file: String) throws(YAMLParseFailure) -> Suite {
        var context = LoadContext(file: file, profile: profile)
        // Steps become model steps as the parser completes each one, so a file's whole tree is never held; a large
        // file's are built on a thread of their own while the parser reads on.
        let streaming = streamsSteps ? Self.stepLists : YAML.ItemStream(paths: [])
        let parsed: YAMLNode?
        if streamsSteps, buildsOnAThread ?? (bytes.count >= Self.stepThreadMinimumBytes) {
            let builder = StepBuilderThread(context: context)
            let outcome = Result { () throws(YAMLParseFailure) in
                try YAML.parse(bytes, file: file, limits: limits, streaming: streaming) { builder.take($0) }
            }
            context = builder.finish()
            parsed = try outcome.get()
        } else {
            parsed = try YAML.parse(bytes, file: file, limits: limits, streaming: streaming) { item in
                context.streamedStep(item)
            }
        }
        _ = consume bytes
        guard let root = parsed else {
            throw YAMLParseFailure([
                Diagnostic(
                    .fileEmpty, file: file, mark: SourceMark(line: 1, column: 1), message: "the file is empty",
                    help: "a suite starts with 'suite: <id>' and 'title: <text>'")
            ])
        }
        var suite = context.suite(root)
        context.checkReferences()
        if let suite { context.checkEvents(suite) }
        if let failure = context.failure { throw failure }
        // Inserted one by one: a set made from the list of every reference is sized for all of them (one per
        // template use, 100,000 in a large file) and the suite would keep that room for its handful of names.
        var names = context.declared
        for reference in context.references { names.insert(reference.name) }
        suite!.names = names
        return suite!
    }
}

/// The state of loading one file: its name and the problems found so far.
struct LoadContext: YAMLDecodingContext {
    let file: String
    /// Names a suite may use without declaring them: the profile's bases.
    let predefined: Set<String>
    /// Functions a template may call: the built-in generators and the profile's.
    let functions: Set<String>
    /// What `profile:` may name, the first when it names none.
    let applicationModes: [String]
    var diagnostics: [Diagnostic] = []
    var defaultID: DiagnosticID { .suiteInvalid }
    /// Template names used, with where, checked once the whole file is read.
    var references: [(name: String, mark: SourceMark)] = []
    /// Functions called with arguments, with where, checked against the built-ins and the profile's.
    var calls: [(name: String, mark: SourceMark)] = []
    var declared: Set<String> = []
    /// Steps built while the file was parsed, by the keys of their list (`["steps"]`, `["flows", name]`), in
    /// list order, with how many items the list had (an item that is not a step builds none).
    var streamedSteps: [[String]: (steps: [Step], items: Int)] = [:]
    /// Templates parsed so far, by text: a text written on many steps (a URL, a header) is parsed once and its
    /// parts are shared by every step that uses it, with the names and functions it uses worked out once.
    var templates: [String: (template: Template, names: [String], calls: [String])] = [:]
    static let maxSharedTemplates = 1 << 16
    /// Capture paths read so far, by text, up to as many texts as templates.
    var captureSources: [String: Capture.Source?] = [:]
    /// Matchers, values, named-matcher lists, a step's check groups and its captures built so far, shared by the
    /// steps that build equal ones (none holds a mark, so equal ones are interchangeable).
    var matchers = Interner<MatchSpec>()
    var values = Interner<TemplateValue>()
    var matcherLists = Interner<NamedMatcherList>()
    var checkLists = Interner<[CheckGroup]>()
    var captureLists = Interner<[Capture]>()

    init(file: String, profile: ProtocolProfile) {
        self.file = file
        self.predefined = profile.baseNames
        self.functions = Set(TemplateScope.builtinFunctions.keys).union(profile.functions.keys)
        self.applicationModes = profile.applicationModes
    }

    mutating func template(_ node: YAMLNode, _ what: String) -> Template? {
        guard let text = string(node, what) else { return nil }
        return parseTemplate(text, at: node.mark)
    }

    mutating func parseTemplate(_ text: String, at mark: SourceMark) -> Template? {
        if let known = templates[text] {
            for name in known.names { references.append((name, mark)) }
            for name in known.calls { calls.append((name, mark)) }
            return known.template
        }
        do {
            let t = try Template(parsing: text)
            let names = t.referencedNames
            let called = t.calledFunctions
            for name in names { references.append((name, mark)) }
            for name in called { calls.append((name, mark)) }
            if templates.count < Self.maxSharedTemplates { templates[text] = (t, names, called) }
            return t
        } catch {
            self.error(at: mark, error.message, help: error.help, id: .suiteTemplate)
            return nil
        }
    }

    /// Builds a step the parser has just completed.
    mutating func streamedStep(_ item: YAML.StreamedItem) {
        let built = step(item.node)
        streamedSteps[item.keys, default: ([], 0)].items += 1
        if let built { streamedSteps[item.keys]!.steps.append(built) }
    }

    /// The first matcher equal to `spec` built in this file (`spec` itself if it is the first).
    mutating func shared(_ spec: MatchSpec) -> MatchSpec { matchers.intern(spec) }

    /// The first value equal to `value` built in this file (`value` itself if it is the first).
    mutating func shared(_ value: TemplateValue) -> TemplateValue { values.intern(value) }

    mutating func duration(_ node: YAMLNode, _ what: String) -> Duration? {
        var parsed: Duration?
        switch node.resolvedScalar {
        case .int(let i)?: parsed = DurationText.seconds(Double(i))
        case .double(let d)?: parsed = DurationText.seconds(d)
        case .string(let s)?: parsed = DurationText.parse(s)
        default: break
        }
        if let parsed { return parsed }
        error(
            node,
            "\(what) must be a duration from 0 to 24h such as 5s, 200ms or 1m, found \(node.kindDescription)",
            help: "write e.g. '\(what): 5s'", id: .yamlInvalidValue)
        return nil
    }

    /// Records a name as declared (a variable or a capture).
    mutating func declare(_ name: String) { declared.insert(name) }

    /// Reports every template name that is neither declared, predefined, nor a function.
    /// Every wait names an event some step of the suite emits (of the flow it names, when it names one), so a
    /// misspelt event is a problem at the wait, not a run that blames the implementation.
    mutating func checkEvents(_ suite: Suite) {
        var byFlow: [String: Set<String>] = [:]
        for flow in suite.flows {
            for step in flow.steps {
                if case .exchange(let exchange) = step.action, let event = exchange.emits {
                    byFlow[flow.name, default: []].insert(event)
                }
            }
        }
        let all = byFlow.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        for flow in suite.flows {
            for step in flow.steps {
                guard case .wait(let wait) = step.action else { continue }
                if let source = wait.flow {
                    guard suite.flows.contains(where: { $0.name == source }) else {
                        let suggestion = closestMatch(to: source, in: suite.flows.map(\.name))
                        error(
                            at: step.mark, "the wait names flow '\(source)', which this suite does not have",
                            help: (suggestion.map { "did you mean '\($0)'? " } ?? "")
                                + "flows: \(suite.flows.map(\.name).joined(separator: ", "))",
                            id: .suiteUnknownEvent)
                        continue
                    }
                    if byFlow[source, default: []].contains(wait.event) { continue }
                } else if all.contains(wait.event) {
                    continue
                }
                let candidates = Array(wait.flow.map { byFlow[$0, default: []] } ?? all).sorted()
                let suggestion = closestMatch(to: wait.event, in: candidates).map { "did you mean '\($0)'? " } ?? ""
                let whose = wait.flow.map { "flow '\($0)'" } ?? "this suite"
                error(
                    at: step.mark, "the wait is for event '\(wait.event)', which no step of \(whose) emits",
                    help: suggestion
                        + (candidates.isEmpty
                            ? "add 'emits: \(wait.event)' to the step that makes it happen"
                            : "events emitted: \(candidates.joined(separator: ", "))"),
                    id: .suiteUnknownEvent)
            }
        }
    }

    mutating func checkReferences() {
        let known = declared.union(predefined).union(functions)
        for (name, mark) in references where !known.contains(name) {
            diagnostics.append(Diagnostic(.undeclaredName(name, known: Array(known)), file: file, mark: mark))
        }
        for (name, mark) in calls where !functions.contains(name) {
            diagnostics.append(Diagnostic(.unknownFunction(name, functions: Array(functions)), file: file, mark: mark))
        }
    }
}

extension YAMLNode {
    /// The scalar's text if it is a non-null scalar.
    var scalarString: String? {
        if case .scalar(let text, _) = kind { return text }
        return nil
    }
}
