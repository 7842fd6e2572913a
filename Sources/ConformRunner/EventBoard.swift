import ConformCore

/// Named events emitted by flows of one suite (e.g. `registrationUpdated`), awaited by other flows.
actor EventBoard {
    struct Emitted: Sendable {
        var flow: String
        var values: [String: JSONValue]
    }

    private var emitted: [String: [Emitted]] = [:]

    func emit(_ name: String, flow: String, values: [String: JSONValue]) {
        emitted[name, default: []].append(Emitted(flow: flow, values: values))
    }

    private func find(_ name: String, from flow: String?) -> Emitted? {
        emitted[name]?.first { flow == nil || $0.flow == flow }
    }

    /// The first emission of `name` (from `flow`, if given), waiting up to `timeout`.
    nonisolated func wait(for name: String, from flow: String?, timeout: Duration) async -> Emitted? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if let hit = await find(name, from: flow) { return hit }
            if clock.now >= deadline { return nil }
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
