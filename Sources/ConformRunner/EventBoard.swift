import ConformCore

/// Named events emitted by flows of one suite (e.g. `registrationUpdated`), awaited by other flows.
actor EventBoard {
    struct Emitted: Sendable {
        var flow: String
        var values: [String: JSONValue]
    }

    /// Why a wait ended without its event.
    enum Miss: Error, Sendable, Equatable {
        /// No other flow of the suite started or finished an exchange for the whole window: the suite is stuck.
        case stalled
        /// The flow that was to emit it (or, with none named, every other flow) finished without emitting it.
        case finishedWithout
    }

    private var emitted: [String: [Emitted]] = [:]
    private var finished: Set<String> = []
    private let flows: Set<String>
    /// When each flow last started or finished an exchange.
    private var lastProgress: [String: ContinuousClock.Instant] = [:]

    init(flows: [String]) { self.flows = Set(flows) }

    /// Records that `flow` started or finished an exchange (every attempt of an `eventually` step counts).
    func progress(_ flow: String) { lastProgress[flow] = ContinuousClock.now }

    /// The latest progress of any flow but `waiter`.
    private func latestProgress(besides waiter: String) -> ContinuousClock.Instant? {
        lastProgress.filter { $0.key != waiter }.values.max()
    }

    func emit(_ name: String, flow: String, values: [String: JSONValue]) {
        emitted[name, default: []].append(Emitted(flow: flow, values: values))
    }

    /// Records that `flow` has run its last step: it will emit nothing more.
    func finish(_ flow: String) { finished.insert(flow) }

    private func find(_ name: String, from flow: String?, waiter: String) -> Result<Emitted, Miss>? {
        if let hit = emitted[name]?.first(where: { flow == nil || $0.flow == flow }) { return .success(hit) }
        if let flow, finished.contains(flow) { return .failure(.finishedWithout) }
        if flow == nil, flows.subtracting([waiter]).isSubset(of: finished) { return .failure(.finishedWithout) }
        return nil
    }

    /// The first emission of `name` (from `flow`, if given).
    ///
    /// The wait measures progress, not the clock: it fails when the event cannot come any more (the emitter, or
    /// every other flow, finished without it) or when no other flow of the suite has started or finished an
    /// exchange for `window` (the emitter may itself be waiting on a third flow, so any flow's progress counts).
    /// A slow implementation that keeps answering is waited for; a stuck one is not.
    nonisolated func wait(for name: String, from flow: String?, waiter: String, window: Duration) async -> Result<
        Emitted, Miss
    > {
        let clock = ContinuousClock()
        let start = clock.now
        while true {
            if let outcome = await find(name, from: flow, waiter: waiter) { return outcome }
            let last = max(start, await latestProgress(besides: waiter) ?? start)
            if clock.now - last >= window { return .failure(.stalled) }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Lets at most `limit` flows run at once.
actor ConcurrencyLimiter {
    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    private func acquire() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    nonisolated func withPermit<T: Sendable>(_ body: @Sendable () async -> T) async -> T {
        await acquire()
        let value = await body()
        await release()
        return value
    }
}
