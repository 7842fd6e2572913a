import ConformCore
import ConformDiagnostics
import ConformReport
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
        /// The step's place in its flow, from 0, and its name (empty for a request no step came close to).
        public var stepIndex: Int
        public var stepName: String
        /// The suite file and the step's place in it (empty and `0:0` for a request no step came close to).
        public var file: String
        public var mark: SourceMark
        public var request: HTTPRequest
        public var status: Int
        /// Why the request matched no step (empty when it matched).
        public var mismatches: [Mismatch]
        /// The answer the mock sent.
        public var response: HTTPResponse?

        /// `n. name` of the step, as reports show it; empty when there is none.
        public var step: String { stepName.isEmpty ? "" : "\(stepIndex + 1). \(stepName)" }
        /// `file:line:col` of the step; empty when there is none.
        public var location: String { file.isEmpty ? "" : "\(file):\(mark)" }

        init(
            suiteID: String, flow: String, stepIndex: Int, stepName: String, file: String, mark: SourceMark,
            request: HTTPRequest, status: Int, mismatches: [Mismatch], response: HTTPResponse? = nil
        ) {
            (self.suiteID, self.flow, self.stepIndex, self.stepName) = (suiteID, flow, stepIndex, stepName)
            (self.file, self.mark, self.request, self.status) = (file, mark, request, status)
            (self.mismatches, self.response) = (mismatches, response)
        }

        /// A request no step came close to.
        init(unplaced request: HTTPRequest, status: Int) {
            self.init(
                suiteID: "", flow: "", stepIndex: 0, stepName: "", file: "", mark: SourceMark(line: 0, column: 0),
                request: request, status: status, mismatches: [])
        }
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
        /// Every placed request with the response it got, in arrival order (for re-planning).
        var history: [(request: HTTPRequest, response: HTTPResponse)] = []
        /// Emitted events by suite: event name → (flow name, values).
        var events: [Int: [String: (String, [String: JSONValue])]] = [:]
        var matched: [Entry] = []
        var unmatched: [Entry] = []
    }

    public let suites: [Suite]
    /// The profile's envelope: a request no step accepts is refused as the protocol's servers refuse.
    public let errorEnvelope: ErrorEnvelope
    private let free: [Set<String>]
    private let initial: [FlowState]
    private let state: Mutex<State>

    /// Prepares every flow of `suites`; `overrides` fix variables, as `--var` does for `conform run`; `profile`
    /// names the bases (empty: a client sends origin-form paths) and the template functions beyond the built-ins.
    public init(suites: [Suite], overrides: [String: String] = [:], profile: ProtocolProfile) {
        self.suites = suites
        self.errorEnvelope = profile.errorEnvelope
        var allFunctions = TemplateScope.builtinFunctions
        allFunctions.merge(profile.functions) { _, new in new }
        var free: [Set<String>] = []
        var flows: [FlowState] = []
        for (index, suite) in suites.enumerated() {
            var scope = TemplateScope(functions: allFunctions)
            for base in profile.bases { scope[base.name] = "" }
            var names = Set<String>()
            for variable in suite.variables {
                if let fixed = overrides[variable.name] {
                    scope[variable.name] = .string(fixed)
                    continue
                }
                // A default that calls a generator (or is empty) is the client's choice: bind it to what comes.
                var heads = variable.defaultValue.referencedNames
                if case .string(let t) = variable.defaultValue { heads += t.expressionHeads }
                let calls = heads.contains { allFunctions[$0] != nil }
                if calls || variable.defaultValue.description.isEmpty {
                    names.insert(variable.name)
                } else if let value = try? variable.defaultValue.render(in: scope) {
                    scope[variable.name] = value
                }
            }
            free.append(names)
            for flowIndex in suite.flows.indices {
                flows.append(FlowState(suite: index, flow: flowIndex, scope: scope))
            }
        }
        self.free = free
        self.initial = flows
        self.state = Mutex(State(flows: flows))
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        state.withLock { state in
            advanceWaits(&state)
            if let best = candidates(for: request, in: state).first {
                return answer(best, request: request, state: &state)
            }
            // Flows that start alike (several devices registering) may have been told apart wrongly: look for
            // another way to place the requests already answered, with the answers they got, that leaves a
            // place for this one.
            var budget = 20_000
            if var replanned = replan(state.history[...], from: State(flows: initial), then: request, budget: &budget),
                let best = candidates(for: request, in: replanned).first
            {
                replanned.unmatched = state.unmatched
                state = replanned
                return answer(best, request: request, state: &state)
            }
            return refuse(request, closest: closest(for: request, in: state), state: &state)
        }
    }

    /// A pending step that accepts a request: which flow, the step, the scope after binding, how specific.
    struct Candidate {
        var index: Int
        var exchange: Exchange
        var step: Step
        var scope: TemplateScope
        var score: Int
    }

    /// Every pending step that accepts `request`, the most specific first (a step listing no headers accepts any).
    private func candidates(for request: HTTPRequest, in state: State) -> [Candidate] {
        var found: [Candidate] = []
        for i in state.flows.indices {
            let f = state.flows[i]
            let steps = suites[f.suite].flows[f.flow].steps
            guard f.next < steps.count, case .exchange(let exchange) = steps[f.next].action else { continue }
            var binder = Binder(scope: f.scope, free: free[f.suite])
            if binder.mismatches(exchange.request, request).isEmpty {
                let score = Self.specificity(exchange.request)
                found.append(
                    Candidate(index: i, exchange: exchange, step: steps[f.next], scope: binder.scope, score: score))
            }
        }
        // Stable: among equally specific steps the earlier flow comes first.
        return found.enumerated().sorted { ($0.element.score, -$0.offset) > ($1.element.score, -$1.offset) }.map(
            \.element)
    }

    /// The pending step with the fewest mismatches, and the mismatches, for the refusal message.
    private func closest(for request: HTTPRequest, in state: State) -> (Int, [Mismatch])? {
        var closest: (Int, [Mismatch])?
        for i in state.flows.indices {
            let f = state.flows[i]
            let steps = suites[f.suite].flows[f.flow].steps
            guard f.next < steps.count, case .exchange(let exchange) = steps[f.next].action else { continue }
            var binder = Binder(scope: f.scope, free: free[f.suite])
            let mismatches = binder.mismatches(exchange.request, request)
            if closest == nil || mismatches.count < closest!.1.count { closest = (i, mismatches) }
        }
        return closest
    }

    /// Places `history` again from `state`, each request with the response it already got, so that `pending`
    /// then has a step that accepts it; `nil` when no placement does or the search budget runs out.
    private func replan(
        _ history: ArraySlice<(request: HTTPRequest, response: HTTPResponse)>, from state: State,
        then pending: HTTPRequest,
        budget: inout Int
    ) -> State? {
        var state = state
        advanceWaits(&state)
        guard let (request, response) = history.first else {
            return candidates(for: pending, in: state).isEmpty ? nil : state
        }
        for candidate in candidates(for: request, in: state) {
            budget -= 1
            if budget <= 0 { return nil }
            var next = state
            guard record(candidate, request: request, response: response, state: &next) else { continue }
            if let placed = replan(history.dropFirst(), from: next, then: pending, budget: &budget) { return placed }
        }
        return nil
    }

    /// Answers with a response that satisfies the step, and records the exchange.
    private func answer(_ candidate: Candidate, request: HTTPRequest, state: inout State) -> HTTPResponse {
        let response = candidate.exchange.exampleResponse(in: candidate.scope)
        _ = record(candidate, request: request, response: response, state: &state)
        return response
    }

    /// Moves the candidate's flow past its step (captures from `response`, events, history); `false` when the
    /// response lacks a value the step captures, because it was the answer to another step.
    private func record(_ candidate: Candidate, request: HTTPRequest, response: HTTPResponse, state: inout State)
        -> Bool
    {
        let i = candidate.index
        let f = state.flows[i]
        let suite = suites[f.suite]
        let flow = suite.flows[f.flow]
        let captured = candidate.exchange.capture(from: response)
        guard captured.missing.isEmpty, candidate.exchange.failures(for: response, in: candidate.scope).isEmpty else {
            return false
        }
        var scope = candidate.scope
        for (key, value) in captured.values { scope[key] = value }
        if let event = candidate.exchange.emits {
            state.events[f.suite, default: [:]][event] = (flow.name, scope.values)
        }
        state.flows[i].scope = scope
        state.flows[i].next += 1
        // Suite variables are the suite's, not one flow's: a value bound here holds in every flow of the suite.
        for name in free[f.suite] {
            guard let value = scope[name] else { continue }
            for j in state.flows.indices where state.flows[j].suite == f.suite && state.flows[j].scope[name] == nil {
                state.flows[j].scope[name] = value
            }
        }
        state.history.append((request, response))
        state.matched.append(
            Entry(
                suiteID: suite.id, flow: flow.name, stepIndex: f.next, stepName: candidate.step.name,
                file: suite.file, mark: candidate.step.mark, request: request, status: response.status.code,
                mismatches: [], response: response))
        return true
    }

    /// How much a request description asks for: query parameters, headers and JSON body members.
    static func specificity(_ spec: RequestSpec) -> Int {
        func leaves(_ m: MatchSpec) -> Int {
            switch m {
            case .object(let fields, _): fields.reduce(0) { $0 + leaves($1.value) }
            case .array(let items): items.reduce(0) { $0 + leaves($1) }
            default: 1
            }
        }
        var score = spec.query.count + spec.headers.count
        if case .json(let body)? = spec.body { score += leaves(body) } else if spec.body != nil { score += 1 }
        return score
    }

    private func refuse(_ request: HTTPRequest, closest: (Int, [Mismatch])?, state: inout State) -> HTTPResponse {
        var entry = Entry(unplaced: request, status: 404)
        var text = "No pending step of the suites accepts \(request.method) \(request.target)."
        if let (i, mismatches) = closest {
            let f = state.flows[i]
            let suite = suites[f.suite]
            let step = suite.flows[f.flow].steps[f.next]
            entry = Entry(
                suiteID: suite.id, flow: suite.flows[f.flow].name, stepIndex: f.next, stepName: step.name,
                file: suite.file, mark: step.mark, request: request, status: 404, mismatches: mismatches)
            let why = mismatches.prefix(3).map { "\($0.path): expected \($0.expected), got \($0.actual)" }.joined(
                separator: "; ")
            text += " Closest: \(suite.id) › \(entry.flow) › \(entry.step) (\(entry.location)): \(why)."
        }
        let answer = errorEnvelope.response(404, code: "CONFORM_MOCK_NO_MATCH", text: text)
        entry.response = answer
        state.unmatched.append(entry)
        return answer
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
                state.flows[i].scope[emitter] = .object(
                    JSONObject(values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
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
                    if case .exchange = step.action {
                        pending.append(
                            "\(suite.id) › \(flow.name) › \(n + 1). \(step.name) (\(suite.file):\(step.mark))")
                    }
                }
            }
            return Report(matched: state.matched, unmatched: state.unmatched, pending: pending)
        }
    }

    /// Whether every exchange step of every flow has been answered.
    public var isDone: Bool { report().pending.isEmpty }
}
