import ConformCore

/// Named events emitted by flows of one suite (e.g. `registrationUpdated`), awaited by other flows.
actor EventBoard {
    struct Emitted: Sendable {
        var flow: String
        var values: [String: JSONValue]
    }

    /// Why a wait ended without its event.
    enum Miss: Error, Sendable, Equatable {
        /// No other flow of the suite had an exchange under way, started one or finished one for the whole window:
        /// the suite is stuck.
        case stalled
        /// The flow that was to emit it (or, with none named, every other flow) finished without emitting it.
        case finishedWithout
        /// The flow that was to emit it (or, with none named, one of the other flows) finished without emitting it
        /// because a step of it could not run (`why`): nothing was learnt, so the wait is not a failure either.
        case couldNotRun(flow: String, why: String)
        /// The flow that was to emit it (or, with none named, one of the other flows that emit it) finished without
        /// emitting it because its emitting step, or a step before it, did not pass (`why` names both): the wait
        /// is not a second failure of the same fault.
        case emitterDidNotPass(flow: String, why: String)
    }

    /// A step of a flow, by its place (0-based) and name.
    struct StepName: Sendable, Equatable, CustomStringConvertible {
        var index: Int
        var name: String
        var description: String { "step \(index + 1) '\(name)'" }
    }

    private var emitted: [String: [Emitted]] = [:]
    private var finished: Set<String> = []
    /// Why each finished flow that could not run all its steps stopped (its first step that could not run).
    private var couldNotRun: [String: String] = [:]
    private let flows: Set<String>
    /// The step of each flow that emits each event: `emitters[event][flow]`.
    private let emitters: [String: [String: StepName]]
    /// The first step of each finished flow that failed, when one did.
    private var failed: [String: StepName] = [:]
    /// When each flow last started or finished an exchange.
    private var lastProgress: [String: ContinuousClock.Instant] = [:]
    /// Exchanges under way, per flow: each is bounded by its own deadline, so while one runs the suite is not stuck.
    private var underWay: [String: Int] = [:]

    init(flows: [String], emitters: [String: [String: StepName]] = [:]) {
        self.flows = Set(flows)
        self.emitters = emitters
    }

    /// The board of `suite`: its flows, and the step of each that emits each event.
    init(_ suite: Suite) {
        var emitters: [String: [String: StepName]] = [:]
        for flow in suite.flows {
            for (index, step) in flow.steps.enumerated() {
                if case .exchange(let exchange) = step.action, let event = exchange.emits,
                    emitters[event]?[flow.name] == nil
                {
                    emitters[event, default: [:]][flow.name] = StepName(index: index, name: step.name)
                }
            }
        }
        self.init(flows: suite.flows.map(\.name), emitters: emitters)
    }

    /// Records that `flow` started an exchange (every attempt of an `eventually` step counts).
    func started(_ flow: String) {
        lastProgress[flow] = ContinuousClock.now
        underWay[flow, default: 0] += 1
    }

    /// Records that an exchange `flow` started has ended, with a response or without one.
    func ended(_ flow: String) {
        lastProgress[flow] = ContinuousClock.now
        underWay[flow] = max(0, (underWay[flow] ?? 0) - 1)
    }

    /// The latest progress of any flow but `waiter`, or `now` while one of them has an exchange under way.
    private func latestProgress(besides waiter: String) -> ContinuousClock.Instant? {
        if underWay.contains(where: { $0.key != waiter && $0.value > 0 }) { return ContinuousClock.now }
        return lastProgress.filter { $0.key != waiter }.values.max()
    }

    func emit(_ name: String, flow: String, values: [String: JSONValue]) {
        emitted[name, default: []].append(Emitted(flow: flow, values: values))
    }

    /// Records that `flow` has run its last step: it will emit nothing more; `couldNotRun` says why, when a step of
    /// it could not run.
    /// `failed` is its first step that failed, when one did.
    func finish(_ flow: String, couldNotRun why: String? = nil, failed step: StepName? = nil) {
        finished.insert(flow)
        if let why { couldNotRun[flow] = why }
        if let step { failed[flow] = step }
    }

    /// Why `flow`, finished, did not emit `event` because a step failed: its emitting step failed, or did not run
    /// after an earlier one failed. `nil` when no step of it failed, or when the failure came after the emitter.
    private func didNotPass(_ event: String, flow: String) -> String? {
        guard let failure = failed[flow], let emitter = emitters[event]?[flow], failure.index <= emitter.index
        else { return nil }
        if failure.index == emitter.index { return "its emitting \(emitter) failed" }
        return "its emitting \(emitter) did not run: \(failure) failed"
    }

    private func find(_ name: String, from flow: String?, waiter: String) -> Result<Emitted, Miss>? {
        if let hit = emitted[name]?.first(where: { flow == nil || $0.flow == flow }) { return .success(hit) }
        if let flow, finished.contains(flow) {
            if let why = couldNotRun[flow] { return .failure(.couldNotRun(flow: flow, why: why)) }
            if let why = didNotPass(name, flow: flow) { return .failure(.emitterDidNotPass(flow: flow, why: why)) }
            return .failure(.finishedWithout)
        }
        if flow == nil, flows.subtracting([waiter]).isSubset(of: finished) {
            // The flows that would have emitted it first: one that could not run, or failed before it emitted,
            // leaves the wait unjudged, naming it.
            for other in (emitters[name]?.keys.sorted() ?? []) where other != waiter {
                if let why = couldNotRun[other] { return .failure(.couldNotRun(flow: other, why: why)) }
                if let why = didNotPass(name, flow: other) {
                    return .failure(.emitterDidNotPass(flow: other, why: why))
                }
            }
            // Any other flow might have emitted it: one that could not run leaves the wait unjudged.
            if let (other, why) = couldNotRun.filter({ $0.key != waiter }).min(by: { $0.key < $1.key }) {
                return .failure(.couldNotRun(flow: other, why: why))
            }
            return .failure(.finishedWithout)
        }
        return nil
    }

    /// The first emission of `name` (from `flow`, if given).
    ///
    /// The wait measures progress, not the clock: it fails when the event cannot come any more (the emitter, or
    /// every other flow, finished without it) or when no other flow of the suite has had an exchange under way,
    /// started one or finished one for `window` (the emitter may itself be waiting on a third flow, so any flow's
    /// progress counts). An exchange under way ends by its own deadline, so a slow implementation that keeps
    /// answering is waited for, however slow; a stuck one is not.
    ///
    /// The window counts only time the runner was awake to watch: a pause between two looks that lasts longer than
    /// ``longestCountedPause`` (the process starved of the processor on a loaded machine, when the flows could not
    /// progress either) counts as that much, so a busy host never fails a wait that an idle one would pass.
    /// `pause` waits between two looks and says how long it took; tests give their own.
    nonisolated func wait(
        for name: String, from flow: String?, waiter: String, window: Duration,
        pause: @Sendable () async -> Duration = EventBoard.pause
    ) async -> Result<Emitted, Miss> {
        let clock = ContinuousClock()
        var seen = clock.now
        var quiet = Duration.zero
        while true {
            if let outcome = await find(name, from: flow, waiter: waiter) { return outcome }
            if let latest = await latestProgress(besides: waiter), latest > seen {
                seen = latest
                quiet = min(clock.now - latest, Self.longestCountedPause)
            }
            if quiet >= window { return .failure(.stalled) }
            quiet += min(await pause(), Self.longestCountedPause)
        }
    }

    /// The most one pause between two looks of a wait counts towards its window.
    static let longestCountedPause: Duration = .milliseconds(100)

    /// Sleeps 5 ms and says how long it took.
    @Sendable static func pause() async -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try? await Task.sleep(for: .milliseconds(5))
        return clock.now - start
    }
}
