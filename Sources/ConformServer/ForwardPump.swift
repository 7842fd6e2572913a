import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Non-blocking socket steps shared by the forward proxy's acceptor, its TLS side and its pump.
enum SocketIO {
    /// What one read or write did.
    enum Outcome {
        case bytes(Int)
        /// Nothing now; wait for these poll events.
        case wouldBlock(Int16)
        case closed
    }

    /// Waits until `socket` has `events` (or an error or hang-up) by `deadline`; `false` on time-out.
    static func wait(_ socket: Int32, events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        var entry = pollfd(fd: socket, events: events, revents: 0)
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let result = poll(&entry, 1, milliseconds(left))
            if result > 0 { return true }
            if result < 0 && errno != EINTR { return false }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }

    static func setNonBlocking(_ socket: Int32) {
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
    }

    /// Makes `poll` report the socket readable only once `bytes` are waiting (`SO_RCVLOWAT`): a head peeked but not
    /// consumed keeps its socket readable, and the poll loop waits for more than it has seen.
    static func setReceiveLowWater(_ socket: Int32, _ bytes: Int) {
        var value = Int32(clamping: max(1, bytes))
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVLOWAT, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes all of `bytes` by `deadline` on a non-blocking socket; `false` if it could not.
    static func writeAll(_ socket: Int32, _ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
            } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                guard wait(socket, events: Int16(POLLOUT), until: deadline) else { return false }
            } else {
                return false
            }
        }
        return true
    }
}

/// One side of a pump: a non-blocking socket.
protocol PumpEnd: AnyObject {
    var socket: Int32 { get }
    var hasPending: Bool { get }
    func read(into buffer: UnsafeMutableRawBufferPointer) -> SocketIO.Outcome
    func write(_ buffer: UnsafeRawBufferPointer) -> SocketIO.Outcome
}

/// A plain non-blocking socket.
final class PlainEnd: PumpEnd {
    let socket: Int32
    init(_ socket: Int32) { self.socket = socket }
    var hasPending: Bool { false }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> SocketIO.Outcome {
        let count = recv(socket, buffer.baseAddress, buffer.count, 0)
        if count > 0 { return .bytes(count) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return .wouldBlock(Int16(POLLIN)) }
        return .closed
    }

    func write(_ buffer: UnsafeRawBufferPointer) -> SocketIO.Outcome {
        let count = send(socket, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
        if count > 0 { return .bytes(count) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return .wouldBlock(Int16(POLLOUT)) }
        return .closed
    }
}

/// Copies bytes both ways between two non-blocking ends until either closes, fails, or both are idle for `idle`.
///
/// Each direction holds at most one buffer of 16 KiB: a side that does not read stops the other side's reading,
/// so a slow peer costs its own connection's memory only.
enum Pump {
    /// `touch` is called whenever bytes move, so the owner knows how long the tunnel has been idle.
    static func run(_ a: any PumpEnd, _ b: any PumpEnd, idle: Duration, touch: () -> Void = {}) {
        var ab = Pending()
        var ba = Pending()
        var aWants = Int16(POLLIN)
        var bWants = Int16(POLLIN)
        var lastActivity = ContinuousClock.now
        while true {
            let before = lastActivity
            if !step(from: a, to: b, &ab, &aWants, &bWants, &lastActivity) { return }
            if !step(from: b, to: a, &ba, &bWants, &aWants, &lastActivity) { return }
            if lastActivity != before { touch() }
            if a.hasPending && ab.isEmpty || b.hasPending && ba.isEmpty { continue }
            var entries = [
                pollfd(fd: a.socket, events: events(reading: ab.isEmpty, writing: !ba.isEmpty, aWants), revents: 0),
                pollfd(fd: b.socket, events: events(reading: ba.isEmpty, writing: !ab.isEmpty, bWants), revents: 0),
            ]
            let left = idle - lastActivity.duration(to: .now)
            guard left > .zero else { return }
            let result = poll(&entries, 2, SocketIO.milliseconds(left))
            if result < 0 && errno != EINTR { return }
            for entry in entries where entry.revents & Int16(POLLERR | POLLNVAL) != 0 { return }
        }
    }

    private static func events(reading: Bool, writing: Bool, _ wants: Int16) -> Int16 {
        var events: Int16 = 0
        if reading || writing { events |= wants }
        if reading { events |= Int16(POLLIN) }
        if writing { events |= Int16(POLLOUT) }
        return events
    }

    /// Bytes read from one end and not yet written to the other.
    struct Pending {
        var bytes = [UInt8](repeating: 0, count: 16 * 1024)
        var start = 0
        var end = 0
        var isEmpty: Bool { start == end }
    }

    /// Reads from `source` when nothing is pending, then writes what is pending to `sink`; `false` once either end
    /// is closed or fails (the other's pending bytes are dropped: the exchange they belonged to is cut anyway).
    private static func step(
        from source: any PumpEnd, to sink: any PumpEnd, _ pending: inout Pending, _ sourceWants: inout Int16,
        _ sinkWants: inout Int16, _ lastActivity: inout ContinuousClock.Instant
    ) -> Bool {
        if pending.isEmpty {
            let outcome = pending.bytes.withUnsafeMutableBytes { source.read(into: $0) }
            switch outcome {
            case .bytes(let count):
                pending.start = 0
                pending.end = count
                lastActivity = .now
            case .wouldBlock(let events): sourceWants = events
            case .closed: return false
            }
        }
        while !pending.isEmpty {
            let outcome = pending.bytes[pending.start..<pending.end].withUnsafeBytes { sink.write($0) }
            switch outcome {
            case .bytes(let count):
                pending.start += count
                lastActivity = .now
            case .wouldBlock(let events):
                sinkWants = events
                return true
            case .closed: return false
            }
        }
        return true
    }
}
