internal import CCurl
internal import CEpoll
import ConformCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Carries plain HTTP/1.1 exchanges to numeric addresses on a ``CurlLoop``'s thread, without libcurl: one `send` of
/// the request, the answer read as it arrives, kept-alive connections reused. It joins the loop as a source (its
/// epoll descriptor waited on beside libcurl's sockets), so the tasks that send run, wait and resume on the same
/// thread as libcurl's exchanges do.
///
/// What it sends and what it makes of the answer are libcurl's (``PlainHTTPExchange/wire(_:target:)``,
/// ``PlainHTTPResponseReader``): the same fields, limits, failures and their kinds. Anything else (HTTPS, a proxy, a
/// host name, a request libcurl would frame itself) stays with libcurl.
final class PlainHTTPClient: IOLoopSource, @unchecked Sendable {
    let descriptor: Int32
    private let loop: CurlLoop
    private let maxExchanges: Int
    private let inbox = Mutex(Inbox())
    private let attached = Atomic(false)
    private let waitingCount = Atomic(0)

    private struct Inbox {
        var exchanges: [PlainHTTPExchange] = []
        var cancellations = false
    }

    // Touched by the loop thread only.
    private var queued: [PlainHTTPExchange] = []
    private var queuedHead = 0
    private var running = 0
    private var connections: [Int32: PlainHTTPConnection] = [:]
    private var idle: [PlainHTTPTarget.SocketAddress: [PlainHTTPConnection]] = [:]
    private var idleCount = 0
    private var readyDescriptors = [Int32](repeating: -1, count: 64)
    private var readyEvents = [UInt32](repeating: 0, count: 64)
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// The soonest deadline of a running exchange, or earlier (an exchange that ended since).
    private var nextDeadline: ContinuousClock.Instant?
    /// Counts the batches of ready descriptors handled (``PlainHTTPConnection/openedIn``).
    private var batch = 0

    /// How many exchanges wait for one of the `maxExchanges` slots.
    var waiting: Int { waitingCount.load(ordering: .acquiring) }

    init(loop: CurlLoop, maxExchanges: Int) {
        self.loop = loop
        self.maxExchanges = max(1, maxExchanges)
        descriptor = conform_epoll_create()
    }

    deinit {
        for connection in connections.values { Glibc.close(connection.fd) }
        if descriptor >= 0 { Glibc.close(descriptor) }
        readBuffer.deallocate()
    }

    // MARK: - From any thread

    /// Starts `exchange`; its continuation is resumed on the loop thread.
    func start(_ exchange: PlainHTTPExchange) {
        inbox.withLock { $0.exchanges.append(exchange) }
        if !attached.exchange(true, ordering: .acquiringAndReleasing) { loop.attach(self) }
        loop.wake(self)
    }

    /// Tells the client that an exchange's cancel flag was set.
    func noteCancellation() {
        inbox.withLock { $0.cancellations = true }
        loop.wake(self)
    }

    /// Leaves the loop (its connections close when the loop lets the client go).
    func close() {
        if attached.exchange(false, ordering: .acquiringAndReleasing) { loop.detach(self) }
    }

    // MARK: - On the loop thread

    func run() -> Int? {
        let (incoming, cancellations) = inbox.withLock { inbox in
            let taken = (inbox.exchanges, inbox.cancellations)
            inbox.exchanges = []
            inbox.cancellations = false
            return taken
        }
        queued.append(contentsOf: incoming)
        if cancellations { endCancelled() }
        admit()
        while descriptor >= 0 {
            let capacity = readyDescriptors.count
            let count = readyDescriptors.withUnsafeMutableBufferPointer { fds in
                readyEvents.withUnsafeMutableBufferPointer { events in
                    conform_epoll_ready(descriptor, fds.baseAddress, events.baseAddress, Int32(capacity))
                }
            }
            guard count > 0 else { break }
            // A connection opened while this batch is handled may reuse the number of one closed in it: the batch's
            // events are older than it, and are not its.
            batch &+= 1
            for index in 0..<Int(count) { handle(fd: readyDescriptors[index], events: readyEvents[index]) }
            if Int(count) < capacity { break }
        }
        admit()
        waitingCount.store(queued.count - queuedHead, ordering: .releasing)
        return endOverdue()
    }

    /// Starts queued exchanges while fewer than `maxExchanges` run.
    private func admit() {
        while running < maxExchanges && queuedHead < queued.count {
            let exchange = queued[queuedHead]
            queuedHead += 1
            if exchange.cancelled.isSet {
                exchange.complete(.failure(TransportError(.other, "\(exchange.method) \(exchange.url): cancelled")))
                continue
            }
            running += 1
            let now = ContinuousClock.now
            exchange.started = now
            let deadline = now + exchange.timeout
            if nextDeadline.map({ deadline < $0 }) ?? true { nextDeadline = deadline }
            send(exchange)
        }
        if queuedHead > 0 && queuedHead == queued.count {
            queued.removeAll(keepingCapacity: true)
            queuedHead = 0
        }
    }

    /// Sends a running exchange on an idle connection to its address, or on a new one.
    private func send(_ exchange: PlainHTTPExchange) {
        let address = exchange.target.address
        if !exchange.retried, var open = idle[address], let connection = open.popLast() {
            idle[address] = open
            idleCount -= 1
            exchange.reused = true
            connection.begin(exchange)
            write(connection)
            return
        }
        exchange.reused = false
        if connections.count >= maxExchanges { closeOneIdle() }
        switch PlainHTTPConnection.open(address) {
        case .failure(let failure):
            end(exchange, .failure(exchange.failure(CURLE_COULDNT_CONNECT, failure.reason)))
        case .success(let connection):
            let watched = conform_epoll_control(
                descriptor, conform_epoll_add, connection.fd, conform_epoll_in | conform_epoll_out)
            guard watched == 0 else {
                Glibc.close(connection.fd)
                end(exchange, .failure(exchange.failure(CURLE_COULDNT_CONNECT, "epoll: \(errnoText())")))
                return
            }
            connection.watchesWrite = true
            connection.openedIn = batch
            connections[connection.fd] = connection
            connection.begin(exchange)
            if !connection.connecting {
                exchange.connectedAt = .now
                write(connection)
            }
        }
    }

    private func handle(fd: Int32, events: UInt32) {
        guard let connection = connections[fd], connection.openedIn != batch else { return }
        guard let exchange = connection.exchange else {
            // An idle connection that turns readable was closed by the server (or sent what nobody asked for).
            drop(connection)
            return
        }
        if connection.connecting {
            guard events & (conform_epoll_out | conform_epoll_err | conform_epoll_hup) != 0 else { return }
            if let reason = connection.connectError() {
                drop(connection)
                end(exchange, .failure(exchange.failure(CURLE_COULDNT_CONNECT, reason)))
                return
            }
            connection.connecting = false
            exchange.connectedAt = .now
            write(connection)
            return
        }
        if events & conform_epoll_out != 0 && connection.written < exchange.bytes.count {
            write(connection)
            guard connection.exchange === exchange else { return }
        }
        if events & (conform_epoll_in | conform_epoll_err | conform_epoll_hup) != 0 { read(connection) }
    }

    /// Writes what is left of the connection's request, watching for writability while some is.
    private func write(_ connection: PlainHTTPConnection) {
        guard let exchange = connection.exchange, !connection.connecting else { return }
        while connection.written < exchange.bytes.count {
            let sent = exchange.bytes.withUnsafeBytes { bytes in
                Glibc.send(
                    connection.fd, bytes.baseAddress! + connection.written, bytes.count - connection.written,
                    Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                connection.written += sent
                continue
            }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                watchWrite(connection, true)
                return
            }
            if sent < 0 && errno == EINTR { continue }
            lost(connection, reason: "Send failure: \(errnoText())", code: CURLE_SEND_ERROR)
            return
        }
        watchWrite(connection, false)
    }

    private func watchWrite(_ connection: PlainHTTPConnection, _ on: Bool) {
        guard connection.watchesWrite != on else { return }
        _ = conform_epoll_control(
            descriptor, conform_epoll_modify, connection.fd, conform_epoll_in | (on ? conform_epoll_out : 0))
        connection.watchesWrite = on
    }

    /// Reads what the connection has (one read a turn: the loop asks again while more is there).
    private func read(_ connection: PlainHTTPConnection) {
        guard let exchange = connection.exchange else { return }
        let count = recv(connection.fd, readBuffer.baseAddress, readBuffer.count, 0)
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            lost(connection, reason: "Recv failure: \(errnoText())", code: CURLE_RECV_ERROR)
            return
        }
        if count == 0 {
            switch connection.reader?.end() {
            case .done?: finish(connection, extra: false)
            default:
                if exchange.sink.status == nil && connection.reader?.started != true {
                    lost(connection, reason: "Empty reply from server", code: CURLE_GOT_NOTHING)
                } else {
                    lost(
                        connection, reason: "the connection closed before the response was complete",
                        code: CURLE_PARTIAL_FILE)
                }
            }
            return
        }
        if exchange.firstByteAt == nil { exchange.firstByteAt = .now }
        guard let step = connection.reader?.read(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])) else {
            return
        }
        switch step {
        case .more: return
        case .done(let extra): finish(connection, extra: extra)
        case .failed(let reason):
            drop(connection)
            end(exchange, .failure(exchange.failure(CURLE_WEIRD_SERVER_REPLY, reason)))
        }
    }

    /// The connection's exchange is answered: the connection goes idle (or closes), the task gets the response.
    private func finish(_ connection: PlainHTTPConnection, extra: Bool) {
        guard let exchange = connection.exchange, let reader = connection.reader else { return }
        // An answer that came before the whole request was written leaves the rest of the request on the connection.
        let requestWritten = connection.written == exchange.bytes.count
        connection.end()
        if extra || !reader.keepsAlive || exchange.closesConnection || !requestWritten {
            drop(connection)
        } else {
            idle[exchange.target.address, default: []].append(connection)
            idleCount += 1
        }
        end(exchange, exchange.response(version: reader.version, at: .now))
    }

    /// The connection failed under its exchange: sent again once on a new connection when a reused one closed before
    /// any of the answer came (the server had closed it while idle), else failed with `reason`.
    private func lost(_ connection: PlainHTTPConnection, reason: String, code: CURLcode) {
        guard let exchange = connection.exchange else { return drop(connection) }
        let unanswered = connection.reader?.started != true
        drop(connection)
        if exchange.reused && unanswered && !exchange.retried {
            exchange.retried = true
            send(exchange)
            return
        }
        end(exchange, .failure(exchange.failure(code, reason)))
    }

    /// Closes a connection and forgets it, idle or not (its exchange, if any, is the caller's to end).
    private func drop(_ connection: PlainHTTPConnection) {
        if connection.exchange == nil, var open = idle[connection.address],
            let index = open.firstIndex(where: { $0 === connection })
        {
            open.remove(at: index)
            idle[connection.address] = open.isEmpty ? nil : open
            idleCount -= 1
        }
        connection.end()
        _ = conform_epoll_control(descriptor, conform_epoll_delete, connection.fd, 0)
        connections[connection.fd] = nil
        Glibc.close(connection.fd)
    }

    /// Makes room for a new connection by closing an idle one (to another address: this one had none idle).
    private func closeOneIdle() {
        guard idleCount > 0, let oldest = idle.values.first(where: { !$0.isEmpty })?.first else { return }
        drop(oldest)
    }

    private func end(_ exchange: PlainHTTPExchange, _ outcome: Result<HTTPResponse, TransportError>) {
        running -= 1
        exchange.complete(outcome)
    }

    /// Ends the exchanges whose task was cancelled, running or queued.
    private func endCancelled() {
        for connection in Array(connections.values) {
            guard let exchange = connection.exchange, exchange.cancelled.isSet else { continue }
            drop(connection)
            end(exchange, .failure(TransportError(.other, "\(exchange.method) \(exchange.url): cancelled")))
        }
        let waiting = queued[queuedHead...]
        guard waiting.contains(where: { $0.cancelled.isSet }) else { return }
        queued = waiting.filter { !$0.cancelled.isSet }
        queuedHead = 0
        for exchange in waiting where exchange.cancelled.isSet {
            exchange.complete(.failure(TransportError(.other, "\(exchange.method) \(exchange.url): cancelled")))
        }
    }

    /// Fails the running exchanges past their timeout; milliseconds until the next deadline, or `nil` for none.
    private func endOverdue() -> Int? {
        guard let soonest = nextDeadline else { return nil }
        let now = ContinuousClock.now
        if soonest > now { return Self.milliseconds(until: soonest, from: now) }
        var next: ContinuousClock.Instant?
        for connection in Array(connections.values) {
            guard let exchange = connection.exchange, let started = exchange.started else { continue }
            let deadline = started + exchange.timeout
            if deadline <= now {
                let waited = started.duration(to: now)
                drop(connection)
                end(
                    exchange,
                    .failure(
                        exchange.failure(
                            CURLE_OPERATION_TIMEDOUT,
                            "Operation timed out after \(waited.wholeMilliseconds) milliseconds with "
                                + "\(exchange.sink.body.count) bytes received")))
            } else if next.map({ deadline < $0 }) ?? true {
                next = deadline
            }
        }
        nextDeadline = next
        return next.map { Self.milliseconds(until: $0, from: now) }
    }

    private static func milliseconds(until deadline: ContinuousClock.Instant, from now: ContinuousClock.Instant) -> Int
    {
        let left = now.duration(to: deadline)
        return Int(max(0, min(1000, left.wholeMilliseconds + 1)))
    }
}

/// The text of `errno` as it is now.
func errnoText() -> String { String(cString: strerror(errno)) }
