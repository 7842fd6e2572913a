import ConformCore
import ConformReport
import Foundation
import Synchronization

/// Plays suites against an implementation through one ``Transport`` and emits ``RunEvent``s.
public struct Runner: Sendable {
    /// What the run's result keeps of each step's exchange once the step's event has been emitted.
    public enum Retention: Sendable {
        /// Every exchange, in memory (small runs, tests).
        case memory
        /// Every exchange, in a spool on disk: memory per step stays a few hundred bytes, reports still show all.
        case spool(ExchangeSpool)
        /// Only the exchanges of steps that did not pass, for runs whose reports show no others.
        case failures
    }

    public let transport: any Transport
    public let retention: Retention

    public init(transport: any Transport, retention: Retention = .memory) {
        self.transport = transport
        self.retention = retention
    }

    /// `result` as the run keeps it, after its event has been emitted with the whole exchange.
    func retained(_ result: StepResult) -> StepResult {
        switch retention {
        case .memory: result
        case .spool(let spool): result.spooled(into: spool)
        case .failures: result.droppingExchangeIfPassed()
        }
    }

    /// Runs every flow of every suite (flows concurrently, steps in order) and returns the result.
    ///
    /// The run's tasks prefer the transport's executor, when it names one, so exchanges need no thread switch.
    public func run(_ plan: RunPlan, events: @escaping @Sendable (RunEvent) -> Void = { _ in }) async -> RunResult {
        await transport.preferringExecutor { await runSuites(plan, events: events) }
    }

    private func runSuites(_ plan: RunPlan, events: @escaping @Sendable (RunEvent) -> Void) async -> RunResult {
        var halting = plan
        if plan.failFast { halting.halt = Halt() }
        let contacted = OriginLog()
        halting.contacted = contacted
        halting.policy = plan.targetDefaults.isEmpty ? nil : plan.originPolicy
        let plan = halting
        let clock = ContinuousClock()
        let start = clock.now
        events(
            .runStarted(
                RunPlanSummary(
                    suiteCount: plan.suites.count, stepCount: plan.suites.reduce(0) { $0 + $1.stepCount },
                    target: plan.targetDescription)))
        let limiter = ConcurrencyLimiter(limit: max(1, plan.maxConcurrentSuites))
        var results: [SuiteResult] = []
        await withTaskGroup(of: (Int, SuiteResult).self) { group in
            for (index, suite) in plan.suites.enumerated() {
                group.addTask {
                    await limiter.withPermit {
                        events(.suiteStarted(suite))
                        return (index, await runSuite(suite, plan: plan, events: events))
                    }
                }
            }
            // Suites finish in any order; report them in plan order, each as soon as those before it are done.
            var done: [Int: SuiteResult] = [:]
            for await (index, result) in group {
                done[index] = result
                while let next = done[results.count] {
                    events(.suiteFinished(next))
                    results.append(next)
                }
            }
        }
        var result = RunResult(suites: results, duration: (clock.now - start).inSeconds, target: plan.targetDescription)
        result.contactedOrigins = contacted.sorted
        if !plan.defaultCredentials.isEmpty {
            result = Self.refusingDefaultCredentials(result, names: plan.defaultCredentials)
        }
        result.notices = RunNotice.gathered(from: result.eachStep, announced: contacted.cleartextNotices)
        events(.runFinished(result))
        return result
    }

    func runSuite(_ suite: Suite, plan: RunPlan, events: @escaping @Sendable (RunEvent) -> Void) async -> SuiteResult {
        let clock = ContinuousClock()
        let start = clock.now
        var functions = TemplateScope.builtinFunctions
        functions.merge(plan.functions) { _, new in new }
        if let seed = plan.generatorSeed {
            functions.merge(SeededGenerators.functions(seed: seed, key: suite.id)) { _, new in new }
        }
        var scope = TemplateScope(functions: functions)
        var setupError: StepError?
        for (key, value) in plan.targetDefaults { scope[key] = .string(value) }
        for variable in suite.variables {
            if let v = plan.overrides[variable.name] ?? plan.environment[variable.name] {
                scope[variable.name] = .string(v)
                continue
            }
            do {
                scope[variable.name] = try variable.defaultValue.render(in: scope)
            } catch {
                setupError = StepError(
                    .setup, at: suite.file, variable.mark, reason: "variable '\(variable.name)': \(error.message)",
                    help: error.help)
                break
            }
        }
        for (key, value) in plan.overrides where scope[key] == nil { scope[key] = .string(value) }
        let board = EventBoard(suite)
        let baseScope = scope
        let failedSetup = setupError
        var steps: [StepResult] = []
        await withTaskGroup(of: [StepResult].self) { group in
            for flow in suite.flows {
                group.addTask {
                    await runFlow(
                        flow, suite: suite, scope: baseScope, setupError: failedSetup, plan: plan, board: board,
                        events: events)
                }
            }
            // Results are kept for the whole run: sized once, and a single flow's list is taken as it is.
            if suite.flows.count > 1 { steps.reserveCapacity(suite.stepCount) }
            for await flowSteps in group {
                if suite.flows.count == 1 { steps = flowSteps } else { steps += flowSteps }
            }
        }
        let order = Dictionary(uniqueKeysWithValues: suite.flows.enumerated().map { ($1.name, $0) })
        steps.sort { (order[$0.flow] ?? 0, $0.index) < (order[$1.flow] ?? 0, $1.index) }
        return SuiteResult(suite: suite, steps: steps, duration: (clock.now - start).inSeconds)
    }

    func runFlow(
        _ flow: Flow, suite: Suite, scope initial: TemplateScope, setupError: StepError?, plan: RunPlan,
        board: EventBoard,
        events: @escaping @Sendable (RunEvent) -> Void
    ) async -> [StepResult] {
        var scope = initial
        // Seeded generators count per flow, so a flow draws the same values however the flows interleave.
        if let seed = plan.generatorSeed {
            scope.functions.merge(SeededGenerators.functions(seed: seed, key: suite.id + "/" + flow.name)) { _, new in
                new
            }
        }
        var results: [StepResult] = []
        results.reserveCapacity(flow.steps.count)
        var blocked: String? = setupError?.message
        // Why the flow could not run all its steps (a step that could not run, or a wait for a flow that could not):
        // a wait for an event this flow would have emitted is then skipped, not failed.
        var couldNotRun: String? = setupError.map { "its setup failed: \($0.message)" }
        // The first step that failed: a wait for an event this flow emits at or after it is skipped, not failed.
        var firstFailed: EventBoard.StepName?
        let origin = StepResult.Origin(suiteID: suite.id, flow: flow.name, file: suite.file, spec: suite.spec)
        for (index, step) in flow.steps.enumerated() {
            var result = StepResult(
                origin: origin, index: index, name: step.name, mark: step.mark,
                spec: step.spec.isEmpty ? suite.spec : step.spec, verdict: .skipped)
            if let blocked, setupError == nil {
                result.errors = [StepError(.skipped, "skipped: \(blocked)", fields: ["blockedBy": blocked])]
            } else if let reason = plan.halt?.reason {
                result.errors = [StepError(.notRun, "not run: \(reason)", fields: ["reason": reason])]
            } else if var setupError {
                setupError.fields["cause"] = setupError.message
                result.errors = [setupError]
                result.verdict = .error
            } else {
                switch step.action {
                case .wait(let wait):
                    result = await runWait(wait, result: result, flow: flow.name, scope: &scope, board: board)
                case .exchange(let exchange):
                    let name = flow.name
                    result = await runExchange(
                        exchange, result: result, scope: &scope, plan: plan,
                        progress: { started in
                            if started { await board.started(name) } else { await board.ended(name) }
                        })
                    if result.verdict == .pass || result.verdict == .assumptionNotMet, let name = exchange.emits {
                        await board.emit(name, flow: flow.name, values: scope.values)
                    }
                }
                if case .wait = step.action, result.verdict == .skipped, plan.halt?.reason == nil,
                    let why = result.errors.first?.fields["blockedBy"]
                {
                    // The event will not come because its emitter could not run: the rest of this flow cannot either.
                    blocked = why
                    couldNotRun = couldNotRun ?? why
                } else if result.verdict == .fail || result.verdict == .error {
                    if result.verdict == .error {
                        couldNotRun = couldNotRun ?? "step \(index + 1) '\(step.name)' could not run"
                    } else if firstFailed == nil {
                        firstFailed = EventBoard.StepName(index: index, name: step.name)
                    }
                    // A wait that failed because the fail-fast stop ended the flow it waited for did not really run.
                    if case .wait = step.action, let reason = plan.halt?.reason {
                        result.verdict = .skipped
                        result.errors = [StepError(.notRun, "not run: \(reason)", fields: ["reason": reason])]
                    } else {
                        plan.halt?.trip(
                            "--fail-fast stopped the run after \(suite.id) › \(flow.name) › \(index + 1). \(step.name)")
                        blocked = "step \(index + 1) '\(step.name)' of flow '\(flow.name)' did not pass"
                    }
                }
            }
            events(.stepFinished(result))
            results.append(retained(result))
        }
        await board.finish(flow.name, couldNotRun: couldNotRun, failed: firstFailed)
        return results
    }

    func runExchange(
        _ exchange: Exchange, result: StepResult, scope: inout TemplateScope, plan: RunPlan,
        progress: @Sendable (_ started: Bool) async -> Void = { _ in }
    ) async -> StepResult {
        var result = result
        let clock = ContinuousClock()
        let start = clock.now
        defer { result.duration = (clock.now - start).inSeconds }
        var window: Duration?
        if let eventually = exchange.eventually {
            do {
                window = try eventually.resolvedTimeout(in: scope)
            } catch {
                result.verdict = .error
                result.errors = [
                    StepError(
                        .badWindow, at: result.file, eventually.mark, reason: error.message, help: error.help,
                        fields: ["window": eventually.window?.source ?? ""])
                ]
                return result
            }
        }
        let deadline = window.map { start + $0 }
        // With a control, an assumption broken on any response counts, not only on the last one.
        var assumedSeen: [CheckFailure] = []
        while true {
            result.attempts += 1
            let request: HTTPRequest
            do {
                request = try exchange.request.render(in: scope)
            } catch {
                result.verdict = .error
                result.errors = [
                    StepError(
                        .text, at: result.file, exchange.request.mark,
                        reason: "cannot build the request: \(error.message)", help: error.help)
                ]
                return result
            }
            var timed = request
            timed.timeout = plan.exchangeTimeout
            result.request = timed
            if let refusal = outsideTarget(request, mark: exchange.request.mark, file: result.file, plan: plan) {
                result.verdict = .error
                result.errors = [refusal]
                return result
            }
            plan.contacted?.note(request.url, originForm: plan.targetDescription)
            var controlMissing: [Mismatch] = []
            let attemptStart = clock.now
            await progress(true)
            // The step that sends is known to the transport's decorators (a bundle's exchange log) as a tag, and
            // `--retry` counts its retries in the step's tally.
            let tag = ExchangeTag(
                suite: result.suiteID, flow: result.flow, step: result.index, attempt: result.attempts)
            let (sent, tally) = await RetryTally.counting { () async -> Result<HTTPResponse, any Error> in
                do {
                    return .success(
                        try await ExchangeTag.$current.withValue(tag) {
                            try await DeadlineTransport(inner: transport, deadline: plan.exchangeTimeout).send(timed)
                        })
                } catch {
                    return .failure(error)
                }
            }
            result.retries += tally.count
            await progress(false)
            switch sent {
            case .success(let response) where response.gatewayUnavailable != nil:
                // A gateway in front of the implementation answered: nothing was learnt about the implementation.
                let cause = Self.retried(response.gatewayUnavailable ?? "", tally.count)
                result.response = response
                result.failures = []
                result.errors = [
                    StepError(.gatewayUnavailable, "gateway unavailable: \(cause)", fields: ["cause": cause])
                ]
                result.verdict = .error
            case .success(let response):
                result.response = response
                result.errors = []
                var failures = exchange.failures(for: response, in: scope)
                if let until = exchange.until {
                    controlMissing = until.mismatches(response, in: scope)
                    for failure in failures where failure.severity == .assumed {
                        if !assumedSeen.contains(where: { $0.decision == failure.decision }) {
                            assumedSeen.append(failure)
                        }
                    }
                    let decided = Set(failures.compactMap(\.decision))
                    failures += assumedSeen.filter { !decided.contains($0.decision ?? "") }
                }
                let captured = exchange.capture(from: response)
                plan.contacted?.learn(from: captured.values, answering: timed.url)
                if !captured.missing.isEmpty, controlMissing.isEmpty {
                    failures.append(CheckFailure(severity: .must, mismatches: captured.missing))
                }
                result.failures = failures
                let severities = Set(failures.map(\.severity))
                if severities.contains(.must) || severities.contains(.should) {
                    result.verdict = .fail
                    // With a control, the checks hold on every response: one that breaks them ends the step.
                    if exchange.until != nil { return result }
                } else if !controlMissing.isEmpty {
                    result.verdict = .fail
                } else {
                    result.verdict = failures.isEmpty ? .pass : .assumptionNotMet
                    for (key, value) in captured.values { scope[key] = value }
                }
            case .failure(let error as TransportError):
                result.response = nil
                result.failures = []
                let cause = Self.retried("\(error)", tally.count)
                var fields = ["cause": cause]
                // What the whole run needs told once (a TLS failure's cause and fix) is counted, not repeated.
                if let notice = error.notice { fields["notice"] = notice }
                result.errors = [StepError(.noResponse, "no response: \(cause)", fields: fields)]
                result.verdict = error.meansCannotRun ? .error : .fail
            case .failure(let error):
                result.response = nil
                result.errors = [StepError(.noResponse, "no response: \(error)", fields: ["cause": "\(error)"])]
                result.verdict = .fail
            }
            // A control ends the repetition as soon as it arrives; otherwise the step repeats until everything holds.
            let settled =
                exchange.until != nil ? result.response != nil && controlMissing.isEmpty : result.verdict == .pass
            guard let deadline, let eventually = exchange.eventually, let window, !settled, result.verdict != .error
            else {
                return result
            }
            // The window closes only with an attempt begun after it ends, so an exchange slowed down by the
            // transport or the machine cannot make the step miss an effect that arrived in time.
            if attemptStart >= deadline {
                let tried =
                    "\(result.attempts) attempt\(result.attempts == 1 ? "" : "s") in \(DurationText.format(window))"
                let fields = ["attempts": "\(result.attempts)", "window": DurationText.format(window)]
                if !controlMissing.isEmpty {
                    result.failures.append(CheckFailure(severity: .must, mismatches: controlMissing))
                    result.errors.append(
                        StepError(
                            .controlMissing,
                            "the control ('until') did not arrive after \(tried), so the checks of this step "
                                + "cannot be judged; the control itself must arrive", fields: fields))
                } else {
                    result.errors.append(StepError(.stillFailing, "still failing after \(tried)", fields: fields))
                }
                return result
            }
            try? await Task.sleep(for: min(eventually.interval, max(.zero, deadline - clock.now)))
        }
    }
}

extension Runner {

    /// `message` with what `--retry` did, when it retried.
    static func retried(_ message: String, _ retries: Int) -> String {
        retries == 0 ? message : "\(message) (after \(retries) \(retries == 1 ? "retry" : "retries"))"
    }
}
