import ConformCore
import ConformYAML
import Foundation
import Synchronization

/// Plays the server side of suites: each request is matched against the next step of some flow (the same
/// `request` descriptions the runner sends), and answered with a response that satisfies that step's checks.
///
/// Names a client chooses (variables with generated defaults, such as fresh user ids) are bound to what the
/// client sent; values the mock mints (a `$type: string` pushRegId) are captured as the suite says, so later
/// steps expect them back. A request no pending step accepts gets a 404 naming the closest step and why.
public final class SuiteMock: HTTPHandler {
    /// One step the mock answered, or a request it could not place.
    public struct Entry: Sendable, Hashable {
        public var suiteID: String
        public var flow: String
        public var step: String
        public var location: String
        public var request: HTTPRequest
        public var status: Int
        /// Why the request matched no step (empty when it matched).
        public var mismatches: [Mismatch]
    }

    /// What the mock saw: matched steps, unmatched requests, and steps never reached.
    public struct Report: Sendable, Hashable {
        public var matched: [Entry]
        public var unmatched: [Entry]
        /// `suite › flow › n. step (file:line:col)` of every exchange step no request reached.
        public var pending: [String]

        public var complete: Bool { unmatched.isEmpty && pending.isEmpty }
    }

    struct FlowState {
        var suite: Int
        var flow: Int
        var next = 0
        var scope: TemplateScope
    }

    struct State {
        var flows: [FlowState]
        /// Emitted events by suite: event name → (flow name, values).
        var events: [Int: [String: (String, [String: JSONValue])]] = [:]
        var matched: [Entry] = []
        var unmatched: [Entry] = []
    }

    public let suites: [Suite]
    private let free: [Set<String>]
    private let state: Mutex<State>

    /// Prepares every flow of `suites`; `overrides` fix variables, as `--var` does for `conform run`.
    public init(suites: [Suite], overrides: [String: String] = [:], functions: [String: TemplateFunction] = [:]) {
        self.suites = suites
        var allFunctions = TemplateScope.builtinFunctions
        allFunctions.merge(functions) { _, new in new }
        var free: [Set<String>] = []
        var flows: [FlowState] = []
        for (index, suite) in suites.enumerated() {
            var scope = TemplateScope(functions: allFunctions)
            scope["mobile"] = ""
            scope["backend"] = ""
            var names = Set<String>()
            for variable in suite.variables {
                if let fixed = overrides[variable.name] {
                    scope[variable.name] = .string(fixed)
                    continue
                }
                // A default that calls a generator (or is empty) is the client's choice: bind it to what comes.
                let calls = variable.defaultValue.referencedNames.contains { allFunctions[$0] != nil }
                if calls || variable.defaultValue.description.isEmpty {
                    names.insert(variable.name)
                } else if let value = try? variable.defaultValue.render(in: scope) {
                    scope[variable.name] = value
                }
            }
            free.append(names)
            for flowIndex in suite.flows.indices { flows.append(FlowState(suite: index, flow: flowIndex, scope: scope)) }
        }
        self.free = free
        self.state = Mutex(State(flows: flows))
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        state.withLock { state in
            advanceWaits(&state)
            var closest: (Int, [Mismatch])?
            // Several pending steps may accept the request (a step that lists no headers accepts any);
            // the one that asks the most of it wins.
            var best: (index: Int, exchange: Exchange, step: Step, scope: TemplateScope, score: Int)?
            for i in state.flows.indices {
                let f = state.flows[i]
                let flow = suites[f.suite].flows[f.flow]
                guard f.next < flow.steps.count, case .exchange(let exchange) = flow.steps[f.next].action else { continue }
                var binder = Binder(scope: f.scope, free: free[f.suite])
                let mismatches = binder.mismatches(exchange.request, request)
                if mismatches.isEmpty {
                    let score = Self.specificity(exchange.request)
                    if best == nil || score > best!.score { best = (i, exchange, flow.steps[f.next], binder.scope, score) }
                } else if closest == nil || mismatches.count < closest!.1.count {
                    closest = (i, mismatches)
                }
            }
            if let best {
                return answer(best.exchange, step: best.step, flowIndex: best.index, scope: best.scope, request: request, state: &state)
            }
            if let (i, exchange, step) = swapFlows(for: request, state: &state) {
                var binder = Binder(scope: state.flows[i].scope, free: free[state.flows[i].suite])
                _ = binder.mismatches(exchange.request, request)
                return answer(exchange, step: step, flowIndex: i, scope: binder.scope, request: request, state: &state)
            }
            return refuse(request, closest: closest, state: &state)
        }
    }

    /// Flows of one suite that start alike (two devices registering) cannot be told apart until they diverge;
    /// the first request that only fits another flow's next step shows which client flow a state belongs to.
    /// Returns the state now following that flow, when two states that played alike steps can be swapped.
    private func swapFlows(for request: HTTPRequest, state: inout State) -> (Int, Exchange, Step)? {
        for i in state.flows.indices {
            for j in state.flows.indices where j != i && state.flows[j].suite == state.flows[i].suite {
                let a = state.flows[i]
                let b = state.flows[j]
                guard a.next == b.next else { continue }
                let stepsA = suites[a.suite].flows[a.flow].steps
                let stepsB = suites[b.suite].flows[b.flow].steps
                guard b.next < stepsB.count, case .exchange(let exchange) = stepsB[b.next].action,
                    zip(stepsA.prefix(a.next), stepsB.prefix(b.next)).allSatisfy({ Self.alike($0.action, $1.action) })
                else { continue }
                var binder = Binder(scope: a.scope, free: free[a.suite])
                guard binder.mismatches(exchange.request, request).isEmpty else { continue }
                state.flows[i].flow = b.flow
                state.flows[j].flow = a.flow
                return (i, exchange, stepsB[b.next])
            }
        }
        return nil
    }

    /// How much a request description asks for: query parameters, headers and JSON body members.
    static func specificity(_ spec: RequestSpec) -> Int {
        func leaves(_ m: MatchSpec) -> Int {
            switch m {
            case .object(let fields, _): fields.reduce(0) { $0 + leaves($1.matcher) }
            case .array(let items): items.reduce(0) { $0 + leaves($1) }
            default: 1
            }
        }
        var score = spec.query.count + spec.headers.count
        if case .json(let body)? = spec.body { score += leaves(body) } else if spec.body != nil { score += 1 }
        return score
    }

    /// Whether two steps ask for the same request and answer alike (their source positions aside).
    static func alike(_ x: Step.Action, _ y: Step.Action) -> Bool {
        switch (x, y) {
        case (.exchange(var a), .exchange(var b)):
            a.request.mark = SourceMark(line: 0, column: 0)
            b.request.mark = a.request.mark
            for k in a.checks.indices { a.checks[k].expectation.mark = b.request.mark }
            for k in b.checks.indices { b.checks[k].expectation.mark = b.request.mark }
            a.captures = a.captures.map { Capture(name: $0.name, source: $0.source) }
            b.captures = b.captures.map { Capture(name: $0.name, source: $0.source) }
            return a == b
        case (.wait(let a), .wait(let b)): return a == b
        default: return false
        }
    }

    private func answer(
        _ exchange: Exchange, step: Step, flowIndex i: Int, scope: TemplateScope, request: HTTPRequest, state: inout State
    ) -> HTTPResponse {
        let f = state.flows[i]
        let suite = suites[f.suite]
        let flow = suite.flows[f.flow]
        let response = exchange.exampleResponse(in: scope)
        var scope = scope
        for (key, value) in exchange.capture(from: response).values { scope[key] = value }
        if let event = exchange.emits { state.events[f.suite, default: [:]][event] = (flow.name, scope.values) }
        state.flows[i].scope = scope
        state.flows[i].next += 1
        state.matched.append(Entry(
            suiteID: suite.id, flow: flow.name, step: "\(f.next + 1). \(step.name)", location: "\(suite.file):\(step.mark)",
            request: request, status: response.status.code, mismatches: []))
        return response
    }

    private func refuse(_ request: HTTPRequest, closest: (Int, [Mismatch])?, state: inout State) -> HTTPResponse {
        var entry = Entry(suiteID: "", flow: "", step: "", location: "", request: request, status: 404, mismatches: [])
        var text = "No pending step of the suites accepts \(request.method) \(request.target)."
        if let (i, mismatches) = closest {
            let f = state.flows[i]
            let suite = suites[f.suite]
            let step = suite.flows[f.flow].steps[f.next]
            entry = Entry(
                suiteID: suite.id, flow: suite.flows[f.flow].name, step: "\(f.next + 1). \(step.name)",
                location: "\(suite.file):\(step.mark)", request: request, status: 404, mismatches: mismatches)
            let why = mismatches.prefix(3).map { "\($0.path): expected \($0.expected), got \($0.actual)" }.joined(separator: "; ")
            text += " Closest: \(suite.id) › \(entry.flow) › \(entry.step) (\(entry.location)): \(why)."
        }
        state.unmatched.append(entry)
        return .json(404, ["requestError": ["serviceException": ["messageId": "CONFORM_MOCK_NO_MATCH", "text": .string(text)]]])
    }

    /// Moves every flow past `wait` steps whose event has been emitted, taking the emitter's values.
    private func advanceWaits(_ state: inout State) {
        var moved = true
        while moved {
            moved = false
            for i in state.flows.indices {
                let f = state.flows[i]
                let steps = suites[f.suite].flows[f.flow].steps
                guard f.next < steps.count, case .wait(let wait) = steps[f.next].action,
                    let (emitter, values) = state.events[f.suite]?[wait.event], wait.flow == nil || wait.flow == emitter
                else { continue }
                for (key, value) in values where state.flows[i].scope[key] == nil { state.flows[i].scope[key] = value }
                state.flows[i].scope[emitter] = .object(JSONObject(values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
                state.flows[i].next += 1
                moved = true
            }
        }
    }

    /// Everything matched so far, what could not be placed, and the steps still waiting for a request.
    public func report() -> Report {
        state.withLock { state in
            var pending: [String] = []
            for f in state.flows {
                let suite = suites[f.suite]
                let flow = suite.flows[f.flow]
                for (n, step) in flow.steps.enumerated().dropFirst(f.next) {
                    if case .exchange = step.action { pending.append("\(suite.id) › \(flow.name) › \(n + 1). \(step.name) (\(suite.file):\(step.mark))") }
                }
            }
            return Report(matched: state.matched, unmatched: state.unmatched, pending: pending)
        }
    }

    /// Whether every exchange step of every flow has been answered.
    public var isDone: Bool { report().pending.isEmpty }
}
