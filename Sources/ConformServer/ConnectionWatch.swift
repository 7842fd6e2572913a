internal import CMicroHTTPD
import ConformCore
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Bounds how long a connection may keep the server waiting, so slow-drip clients cannot hold every slot.
///
/// libmicrohttpd's idle timeout restarts with every byte, so a client sending one byte a second keeps its
/// connection forever. The watch follows each connection through its request: waiting for the head (from when it
/// opens, and after each answered request), receiving the body, and being handled. It shuts down a connection
///
/// - still waiting for its head after ``HTTPServerLimits/headerTimeoutSeconds``,
/// - still sending its head or body after ``HTTPServerLimits/requestTimeoutSeconds``,
/// - whose body has averaged less than ``HTTPServerLimits/minBodyBytesPerSecond`` once
///   ``HTTPServerLimits/bodyGraceSeconds`` have passed since its head,
///
/// with one second instead of the head timeout and the grace when nine tenths of
/// ``HTTPServerLimits/maxConnections`` are open. When a connection opens and more than
/// ``HTTPServerLimits/waitingBudget`` connections are waiting on their client, the ones that have waited longest are
/// shut down at once, so slots stay free for new clients however fast attackers reconnect. A connection whose
/// request is being handled is never shut down. libmicrohttpd then closes them as it would any connection the peer
/// dropped.
final class ConnectionWatch: Sendable {
    enum Phase {
        case head
        case body
        case handling
    }

    /// Why a connection was shut down.
    enum Cut {
        case slowHead
        case slowRequest
        case crowded
    }

    private struct Entry {
        var socket: Int32
        /// When the connection started waiting for its current request's head.
        var since: ContinuousClock.Instant
        var phase = Phase.head
        var bodySince: ContinuousClock.Instant
        var bodyBytes = 0
        /// The body's length when the head gave it (0 for none), `nil` while unknown (chunked).
        var bodyExpected: Int?
        var cut = false
    }

    let headerTimeout: Duration
    let requestTimeout: Duration
    let bodyGrace: Duration
    let minBodyRate: Int
    let pressureTimeout: Duration = .seconds(1)
    let pressureCount: Int
    let waitingBudget: Int
    /// The connections, spread over shards by their key: every request touches its entry five times from its
    /// connection's thread, and one lock for all of them made every server thread queue behind the others.
    private let shards: [Shard]
    private let openCount = Atomic<Int>(0)
    private let headCuts = Atomic<Int>(0)
    private let requestCuts = Atomic<Int>(0)
    private let crowdedCuts = Atomic<Int>(0)
    private static let shardCount = 32

    init(limits: HTTPServerLimits) {
        headerTimeout = .seconds(limits.headerTimeoutSeconds)
        requestTimeout = .seconds(limits.requestTimeoutSeconds)
        bodyGrace = .seconds(limits.bodyGraceSeconds)
        minBodyRate = limits.minBodyBytesPerSecond
        pressureCount = max(1, limits.maxConnections * 9 / 10)
        waitingBudget = limits.waitingBudget
        shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    /// Connections shut down so far for sending their request head too slowly.
    var cutCount: Int { headCuts.load(ordering: .relaxed) }
    /// Connections shut down so far for a body below the minimum rate or a request past its deadline.
    var slowRequestCount: Int { requestCuts.load(ordering: .relaxed) }
    /// Connections shut down so far to make room for new clients.
    var crowdedCount: Int { crowdedCuts.load(ordering: .relaxed) }

    /// A connection opened; with more than the budget waiting on their client, the longest-waiting are cut.
    func opened(_ connection: OpaquePointer) {
        opened(connection, socket: conform_mhd_connection_fd(connection))
    }

    /// ``opened(_:)`` with the socket given (-1: none to shut down) and the time, for tests.
    func opened(_ connection: OpaquePointer, socket: Int32, now: ContinuousClock.Instant = .now) {
        let id = key(connection)
        let added = shard(id).entries.withLock { entries in
            entries.updateValue(Entry(socket: socket, since: now, bodySince: now), forKey: id) == nil
        }
        if added { openCount.add(1, ordering: .relaxed) }
        makeRoom()
    }

    /// Whether the connection has been shut down and not yet closed.
    func isCut(_ connection: OpaquePointer) -> Bool {
        let id = key(connection)
        return shard(id).entries.withLock { $0[id]?.cut ?? false }
    }

    /// libmicrohttpd calls this before it closes the socket, so a cut never reaches a reused descriptor.
    func closed(_ connection: OpaquePointer) {
        let id = key(connection)
        if shard(id).entries.withLock({ $0.removeValue(forKey: id) }) != nil {
            openCount.subtract(1, ordering: .relaxed)
        }
    }

    /// The request head arrived: the handler has it, and the body (if any) follows.
    func headReceived(_ connection: OpaquePointer, now: ContinuousClock.Instant = .now) {
        update(connection) { entry in
            entry.phase = .body
            entry.bodySince = now
            entry.bodyBytes = 0
            entry.bodyExpected = nil
        }
    }

    /// The head says how long the body is (0 when it has none): once that much has arrived, the client has sent
    /// all it owes, however long the server takes to get to it.
    func bodyLength(_ connection: OpaquePointer, _ length: Int) {
        update(connection) { $0.bodyExpected = length }
    }

    /// `count` more body bytes arrived.
    func bodyReceived(_ connection: OpaquePointer, bytes count: Int) {
        update(connection) { $0.bodyBytes += count }
    }

    /// The whole request is in and the handler runs: the client is no longer the one keeping the server waiting.
    func requestReceived(_ connection: OpaquePointer) {
        update(connection) { $0.phase = .handling }
    }

    /// A request was answered: on keep-alive, the clock starts again for the next head.
    func requestDone(_ connection: OpaquePointer, now: ContinuousClock.Instant = .now) {
        update(connection) { entry in
            entry.phase = .head
            entry.since = now
        }
    }

    /// Shuts down every connection past its deadline or below the body rate; returns how many.
    @discardableResult
    func sweep(now: ContinuousClock.Instant = .now) -> Int {
        let pressed = openCount.load(ordering: .relaxed) >= pressureCount
        let headLimit = pressed ? min(pressureTimeout, headerTimeout) : headerTimeout
        let grace = pressed ? min(pressureTimeout, bodyGrace) : bodyGrace
        var count = 0
        for shard in shards {
            count += shard.entries.withLock { entries in
                var count = 0
                for (id, entry) in entries where !entry.cut && entry.phase != .handling {
                    let reason: Cut
                    if entry.phase == .head, now - entry.since >= headLimit {
                        reason = .slowHead
                    } else if now - entry.since >= requestTimeout
                        || (entry.phase == .body && isSlow(entry, now, grace))
                    {
                        reason = .slowRequest
                    } else {
                        continue
                    }
                    cut(&entries, id, reason)
                    count += 1
                }
                return count
            }
        }
        return count
    }

    /// Whether a body has averaged less than the minimum rate since its head, once the grace has passed.
    private func isSlow(_ entry: Entry, _ now: ContinuousClock.Instant, _ grace: Duration) -> Bool {
        guard minBodyRate > 0 else { return false }
        if let expected = entry.bodyExpected, entry.bodyBytes >= expected { return false }
        let elapsed = now - entry.bodySince
        guard elapsed >= grace else { return false }
        let expected = Double(minBodyRate) * elapsed.inSeconds
        return Double(entry.bodyBytes) < expected
    }

    /// Shuts down the longest-waiting connections while more than the budget wait on their client, and a little
    /// beyond, so a stream of new connections does not sort the table on every one. Only when more connections are
    /// open than the budget can any be over it, so the shards are read only then.
    private func makeRoom() {
        guard openCount.load(ordering: .relaxed) > waitingBudget else { return }
        let isWaiting = { (entry: Entry) in !entry.cut && entry.phase != .handling }
        var waiting: [(id: UInt, since: ContinuousClock.Instant)] = []
        for shard in shards {
            shard.entries.withLock { entries in
                for (id, entry) in entries where isWaiting(entry) { waiting.append((id, entry.since)) }
            }
        }
        guard waiting.count > waitingBudget else { return }
        let excess = waiting.count - waitingBudget + min(waitingBudget / 32, waitingBudget - 1)
        for (id, _) in waiting.sorted(by: { $0.since < $1.since }).prefix(excess) {
            shard(id).entries.withLock { entries in
                // Answered or cut since it was counted: no longer the one to make room.
                guard let entry = entries[id], isWaiting(entry) else { return }
                cut(&entries, id, .crowded)
            }
        }
    }

    private func cut(_ entries: inout [UInt: Entry], _ id: UInt, _ reason: Cut) {
        guard let socket = entries[id]?.socket else { return }
        entries[id]?.cut = true
        // Counted before the shutdown, so a client that sees its connection end also sees it counted.
        switch reason {
        case .slowHead: headCuts.add(1, ordering: .relaxed)
        case .slowRequest: requestCuts.add(1, ordering: .relaxed)
        case .crowded: crowdedCuts.add(1, ordering: .relaxed)
        }
        if socket >= 0 { _ = shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// Sweeps on a timer until the returned source is cancelled.
    func startSweeping() -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let shortest = min(headerTimeout, bodyGrace == .zero ? headerTimeout : bodyGrace)
        let tick = DispatchTimeInterval.milliseconds(min(1000, max(50, Int(shortest.components.seconds) * 250)))
        timer.schedule(deadline: .now() + tick, repeating: tick)
        timer.setEventHandler { [self] in sweep() }
        timer.resume()
        return timer
    }

    /// Changes the entry of `connection`, when it is still open.
    private func update(_ connection: OpaquePointer, _ change: (inout Entry) -> Void) {
        let id = key(connection)
        shard(id).entries.withLock { entries in
            // One lookup, and the entry changed in place.
            if let index = entries.index(forKey: id) { change(&entries.values[index]) }
        }
    }

    private func shard(_ id: UInt) -> Shard {
        // Connection objects are allocated with 16-byte or coarser alignment: the low bits say nothing.
        shards[Int((id >> 4 ^ id >> 10) % UInt(Self.shardCount))]
    }

    private func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }

    /// Some of the connections, under their own lock.
    private final class Shard: Sendable {
        let entries = Mutex<[UInt: Entry]>([:])
    }
}

/// libmicrohttpd's connection notifications, routed to the server's ``ConnectionWatch``.
func conformServerConnection(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection else { return }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    // MHD_CONNECTION_NOTIFY_STARTED is 0, MHD_CONNECTION_NOTIFY_CLOSED 1.
    if code.rawValue == 0 {
        context.watch.opened(connection)
        if context.forwarding, let socketContext {
            let socket = conform_mhd_connection_fd(connection)
            if let tunnel = context.pendingOrigins.withLock({ $0.removeValue(forKey: socket) }) {
                socketContext.pointee = Unmanaged.passRetained(tunnel).toOpaque()
            }
        }
    } else {
        context.watch.closed(connection)
        if let socketContext, let raw = socketContext.pointee {
            let tunnel = Unmanaged<TunnelOrigin>.fromOpaque(raw).takeRetainedValue()
            socketContext.pointee = nil
            if let interception = tunnel.interception {
                // Before libmicrohttpd closes the socket: its number cannot belong to another tunnel yet.
                InterceptedSockets.remove(conform_mhd_connection_fd(connection), interception)
                interception.closed()
            }
        }
    }
}
