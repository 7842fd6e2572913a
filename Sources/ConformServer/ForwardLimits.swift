import Synchronization

/// The forward proxy's own bounds, beside the servers' ``HTTPServerLimits`` (whose ``HTTPServerLimits/waitingBudget``
/// and ``HTTPServerLimits/headerTimeoutSeconds`` bound the connections waiting for their head).
public struct ForwardLimits: Sendable, Hashable {
    /// Tunnels passed through at once (`--other-hosts tunnel`); a new one beyond cuts the one idle longest.
    public var maxTunnels: Int
    /// Tunnels one client address may hold; a `CONNECT` beyond is refused with 503.
    public var tunnelsPerAddress: Int
    /// Connections one client address may keep waiting for their head; a new one beyond closes that address's
    /// longest-waiting one.
    public var waitingPerAddress: Int

    public init(maxTunnels: Int = 256, tunnelsPerAddress: Int = 64, waitingPerAddress: Int = 256) {
        self.maxTunnels = maxTunnels
        self.tunnelsPerAddress = tunnelsPerAddress
        self.waitingPerAddress = waitingPerAddress
    }

    /// A quarter of the connections for tunnels, a sixteenth for one address's tunnels and a quarter for one
    /// address's waiting heads (256, 64 and 256 of 1,024); each at least 1 and within the waiting budget.
    public init(_ limits: HTTPServerLimits) {
        let tunnels = max(1, limits.maxConnections / 4)
        self.init(
            maxTunnels: tunnels, tunnelsPerAddress: max(1, min(tunnels, limits.maxConnections / 16)),
            waitingPerAddress: max(1, min(limits.waitingBudget, limits.maxConnections / 4)))
    }
}

/// What the proxy counts, for its accessors and tests.
final class ForwardCounters: Sendable {
    let refused = Atomic<Int>(0)
    let waiting = Atomic<Int>(0)
    let crowded = Atomic<Int>(0)
    let slowHeads = Atomic<Int>(0)
    let cutTunnels = Atomic<Int>(0)
    let failedHandOvers = Atomic<Int>(0)
    let intercepted = Atomic<Int>(0)
    let passed = Atomic<Int>(0)
}
