internal import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Bounds how long a connection may take to send a request head, so slow-drip clients cannot hold every slot.
///
/// libmicrohttpd's idle timeout restarts with every byte, so a client sending one byte a second keeps its
/// connection forever. The watch notes when each connection starts waiting for a request head (when it opens,
/// and after each answered request) and shuts down those still waiting after ``HTTPServerLimits/headerTimeoutSeconds``
/// (one second when nine tenths of ``HTTPServerLimits/maxConnections`` are open). libmicrohttpd then closes them
/// as it would any connection the peer dropped.
final class ConnectionWatch: Sendable {
    private struct Entry {
        var socket: Int32
        var since: ContinuousClock.Instant
        var waitingForHead: Bool
        var cut = false
    }

    let headerTimeout: Duration
    let pressureTimeout: Duration = .seconds(1)
    let pressureCount: Int
    private let entries = Mutex<[UInt: Entry]>([:])
    private let cuts = Atomic<Int>(0)

    init(limits: HTTPServerLimits) {
        headerTimeout = .seconds(limits.headerTimeoutSeconds)
        pressureCount = max(1, limits.maxConnections * 9 / 10)
    }

    /// Connections shut down so far for sending their request head too slowly.
    var cutCount: Int { cuts.load(ordering: .relaxed) }

    func opened(_ connection: OpaquePointer) {
        let socket = conform_mhd_connection_fd(connection)
        entries.withLock { $0[key(connection)] = Entry(socket: socket, since: .now, waitingForHead: true) }
    }

    /// libmicrohttpd calls this before it closes the socket, so a cut never reaches a reused descriptor.
    func closed(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: key(connection)) }
    }

    /// The request head arrived: the handler has it.
    func headReceived(_ connection: OpaquePointer) {
        entries.withLock { $0[key(connection)]?.waitingForHead = false }
    }

    /// A request was answered: on keep-alive, the clock starts again for the next head.
    func requestDone(_ connection: OpaquePointer) {
        entries.withLock { entries in
            guard entries[key(connection)] != nil else { return }
            entries[key(connection)]?.waitingForHead = true
            entries[key(connection)]?.since = .now
        }
    }

    /// Shuts down every connection past its deadline; returns how many.
    @discardableResult
    func sweep(now: ContinuousClock.Instant = .now) -> Int {
        entries.withLock { entries in
            let limit = entries.count >= pressureCount ? min(pressureTimeout, headerTimeout) : headerTimeout
            var count = 0
            for (id, entry) in entries where entry.waitingForHead && !entry.cut && now - entry.since >= limit {
                if entry.socket >= 0 { _ = shutdown(entry.socket, Int32(SHUT_RDWR)) }
                entries[id]?.cut = true
                count += 1
            }
            if count > 0 { cuts.add(count, ordering: .relaxed) }
            return count
        }
    }

    /// Sweeps on a timer until the returned source is cancelled.
    func startSweeping() -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let tick = DispatchTimeInterval.milliseconds(min(1000, max(50, Int(headerTimeout.components.seconds) * 250)))
        timer.schedule(deadline: .now() + tick, repeating: tick)
        timer.setEventHandler { [self] in sweep() }
        timer.resume()
        return timer
    }

    private func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }
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
    } else {
        context.watch.closed(connection)
    }
}
