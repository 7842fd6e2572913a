import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The accept loop: one thread that accepts and waits for every new connection's head in one `poll`, so a client
/// that connects and sends nothing, or its request line a byte at a time, costs a descriptor and a few bytes, never
/// a thread. It follows the listeners' rules (``ConnectionWatch``): a head must be complete within the head timeout
/// (one second when nine tenths of the waiting budget wait), and when a connection opens with
/// ``HTTPServerLimits/waitingBudget`` waiting, or with ``ForwardLimits/waitingPerAddress`` waiting from its address,
/// the longest-waiting one (of that address first) is closed, so there is always room for a new client however fast
/// attackers reconnect.
extension ForwardProxyServer {
    /// A connection waiting for its head.
    private struct Waiting {
        let socket: Int32
        /// The client's address (IPv4-mapped addresses as IPv4).
        let address: [UInt8]
        let opened: ContinuousClock.Instant
    }

    /// The waiting connections, oldest first, and how many each address has.
    private struct Heads {
        var list: [Waiting] = []
        var perAddress: [[UInt8]: Int] = [:]

        mutating func append(_ head: Waiting) {
            list.append(head)
            perAddress[head.address, default: 0] += 1
        }

        /// Takes the head at `index` out (its socket stays open).
        @discardableResult
        mutating func take(_ index: Int) -> Waiting {
            let head = list.remove(at: index)
            let left = perAddress[head.address, default: 1] - 1
            perAddress[head.address] = left > 0 ? left : nil
            return head
        }
    }

    func acceptLoop(_ listener: Int32, wake: Int32) {
        var heads = Heads()
        var buffer = [UInt8](repeating: 0, count: limits.maxHeaderBytes)
        let budget = limits.waitingBudget
        let pressure = max(1, budget * 9 / 10)
        let timeout = Duration.seconds(limits.headerTimeoutSeconds)
        var pausedUntil: ContinuousClock.Instant?
        var entries: [pollfd] = []

        /// Closes the head at `index`; `crowded` when it makes room, else slow (`false`) or gone or invalid (`nil`).
        func drop(_ index: Int, crowded: Bool?) {
            let head = heads.take(index)
            switch crowded {
            case true: counters.crowded.add(1, ordering: .relaxed)
            case false: counters.slowHeads.add(1, ordering: .relaxed)
            case nil: break
            }
            close(head.socket)
        }

        /// Makes room with the head at `index`: served when its head has arrived meanwhile (a client that sent its
        /// request is never cut for room), closed otherwise.
        func makeRoom(_ index: Int) {
            let socket = heads.list[index].socket
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
            if count > 0, case .head(let head) = ForwardHead.judge(buffer[..<count], maxBytes: limits.maxHeaderBytes) {
                let waiting = heads.take(index)
                dispatch(waiting.socket, from: waiting.address, head)
            } else {
                drop(index, crowded: true)
            }
        }

        while isRunning(listener) {
            // Heads past their deadline go first; the list is in the order they opened.
            let now = ContinuousClock.now
            let limit = heads.list.count >= pressure ? min(.seconds(1), timeout) : timeout
            while let first = heads.list.first, now - first.opened >= limit { drop(0, crowded: false) }
            counters.waiting.store(heads.list.count, ordering: .relaxed)

            if let until = pausedUntil, now >= until { pausedUntil = nil }
            entries.removeAll(keepingCapacity: true)
            entries.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
            entries.append(pollfd(fd: pausedUntil == nil ? listener : -1, events: Int16(POLLIN), revents: 0))
            for head in heads.list {
                entries.append(pollfd(fd: head.socket, events: Int16(POLLIN) | pollReadHangUp, revents: 0))
            }
            var wait = heads.list.first.map { limit - (now - $0.opened) } ?? .seconds(3600)
            if let until = pausedUntil { wait = min(wait, now.duration(to: until)) }
            let ready = poll(&entries, nfds_t(entries.count), SocketIO.milliseconds(wait))
            if ready < 0 && errno != EINTR {
                // Out of memory for the poll, say: try again in a moment rather than stop serving.
                usleep(10_000)
                continue
            }
            if ready <= 0 || entries[0].revents != 0 { continue }

            // From the newest, so taking one out leaves the indexes still to visit as they were.
            for index in stride(from: heads.list.count - 1, through: 0, by: -1) where entries[index + 2].revents != 0 {
                let socket = heads.list[index].socket
                let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
                if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
                guard count > 0 else {
                    drop(index, crowded: nil)
                    continue
                }
                switch ForwardHead.judge(buffer[..<count], maxBytes: limits.maxHeaderBytes) {
                case .head(let head):
                    let waiting = heads.take(index)
                    dispatch(waiting.socket, from: waiting.address, head)
                case .invalid: drop(index, crowded: nil)
                case .partial:
                    // A client that stopped sending (or is gone) with its head unfinished never finishes it; left in
                    // the poll, its hang-up would wake the loop again at once.
                    if entries[index + 2].revents & (pollReadHangUp | Int16(POLLHUP | POLLERR)) != 0 {
                        drop(index, crowded: nil)
                    } else {
                        SocketIO.setReceiveLowWater(socket, count + 1)
                    }
                }
            }

            if entries[1].revents != 0 {
                // A burst at a time, so heads already waiting are read between bursts.
                for _ in 0..<64 {
                    var peer = sockaddr_storage()
                    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                    let client = withUnsafeMutablePointer(to: &peer) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
                    }
                    if client < 0 {
                        // Out of descriptors: the oldest head gives its own back, and accepting pauses a moment
                        // rather than spinning on a listener that stays readable.
                        if errno == EMFILE || errno == ENFILE {
                            if !heads.list.isEmpty { makeRoom(0) }
                            pausedUntil = .now + .milliseconds(10)
                        }
                        break
                    }
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    SocketIO.setNonBlocking(client)
                    let address = withUnsafePointer(to: &peer) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { ForwardAddress($0)?.unmapped ?? [] }
                    }
                    // Room first: this address's longest-waiting head when it has its share, then the longest-
                    // waiting of all when the budget is reached.
                    if heads.perAddress[address, default: 0] >= forwardLimits.waitingPerAddress,
                        let oldest = heads.list.firstIndex(where: { $0.address == address })
                    {
                        makeRoom(oldest)
                    }
                    if heads.list.count >= budget { makeRoom(0) }
                    heads.append(Waiting(socket: client, address: address, opened: .now))
                }
            }
        }
        for head in heads.list { close(head.socket) }
        counters.waiting.store(0, ordering: .relaxed)
        close(listener)
        close(wake)
    }
}

/// `POLLRDHUP` of `<poll.h>` (Linux): the peer shut down its side.
private let pollReadHangUp: Int16 = 0x2000
