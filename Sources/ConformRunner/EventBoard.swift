import ConformCore

/// Named events emitted by flows of one suite (e.g. `registrationUpdated`), awaited by other flows.
actor EventBoard {
    struct Emitted: Sendable {
        var flow: String
        var values: [String: JSONValue]
    }

    /// Why a wait ended without its event.
    enum Miss: Error, Sendable, Equatable {
        case timedOut
        /// The flow that was to emit it (or, with none named, every other flow) finished without emitting it.
        case finishedWithout
    }

    private var emitted: [String: [Emitted]] = [:]
    private var finished: Set<String> = []
    private let flows: Set<String>

    init(flows: [String]) { self.flows = Set(flows) }

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

    /// The first emission of `name` (from `flow`, if given), waiting up to `timeout` or until no flow can emit it.
    nonisolated func wait(for name: String, from flow: String?, waiter: String, timeout: Duration) async -> Result<
        Emitted, Miss
    > {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if let outcome = await find(name, from: flow, waiter: waiter) { return outcome }
            if clock.now >= deadline { return .failure(.timedOut) }
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
