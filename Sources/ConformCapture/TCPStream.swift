import ConformCore
import Foundation

/// One TCP connection followed from its SYN: both directions put back in order and read as HTTP/1.1, requests
/// paired with responses in order (keep-alive and pipelining are the same thing here).
final class TCPStream {
    let number: Int
    let client: Endpoint
    let server: Endpoint
    let limits: CaptureLimits
    var toServer = TCPDirection()
    var toClient = TCPDirection()
    private var requests: HTTPStreamParser
    private var responses: HTTPStreamParser
    /// Requests read, waiting for their response: those from ``waitingHead`` on (taking the first is O(1)).
    private var waiting: [HTTPStreamParser.Message] = []
    private var waitingHead = 0
    /// The body bytes of the requests waiting, kept as they come and go.
    private var waitingBodyBytes = 0
    private var sawClientBytes = false
    /// Once set, nothing more of the stream is read.
    private(set) var stopped = false
    private(set) var problems: [CaptureSummary.Problem] = []
    private(set) var exchanges = 0
    var lastSeen: Double
    /// Whether any segment of the stream carried bytes (a stream without is half-open, and given up first).
    var sawData = false
    /// Bytes held, as last accounted in the importer's total.
    var accountedBytes = 0
    private(set) var serverFinished = false

    /// A request and its response, as read.
    struct Pair {
        var request: HTTPStreamParser.Message
        var response: HTTPStreamParser.Message
    }

    init(number: Int, client: Endpoint, server: Endpoint, limits: CaptureLimits, time: Double) {
        self.number = number
        self.client = client
        self.server = server
        self.limits = limits
        self.lastSeen = time
        requests = HTTPStreamParser(role: .request, limits: limits)
        responses = HTTPStreamParser(role: .response, limits: limits)
    }

    /// Bytes the stream holds in memory now.
    var bufferedBytes: Int {
        toServer.pendingBytes + toClient.pendingBytes + requests.bufferedBytes + responses.bufferedBytes
            + waitingBodyBytes
    }

    var isClosed: Bool { toServer.isFinished && toClient.isFinished }

    func note(_ kind: CaptureSummary.Problem.Kind, _ detail: String) {
        problems.append(CaptureSummary.Problem(kind: kind, detail: detail))
    }

    /// Stops reading: what follows is not read, and what is waiting will not be answered.
    func stop(_ kind: CaptureSummary.Problem.Kind, _ detail: String) {
        guard !stopped else { return }
        note(kind, detail)
        stopped = true
        requests = HTTPStreamParser(role: .request, limits: limits)
        responses = HTTPStreamParser(role: .response, limits: limits)
    }

    /// Bytes of the client's direction in order; `afterGap` when bytes before them were lost.
    func clientBytes(_ bytes: ArraySlice<UInt8>, at time: Double, afterGap: Bool, emit: (Pair) -> Void) {
        guard !stopped else { return }
        if afterGap {
            return stop(.lost, "segments from the client lost at byte \(toServer.firstLossAt ?? 0); read up to there")
        }
        if !sawClientBytes {
            sawClientBytes = true
            if let kind = Self.foreignProtocol(bytes) {
                return stop(
                    kind,
                    kind == .tls
                        ? "TLS: the bytes are encrypted; capture behind the TLS terminator"
                        : "HTTP/2 (prior knowledge): only HTTP/1.1 is read")
            }
        }
        requests.feed(bytes, at: time)
        pump(emit: emit)
    }

    /// Bytes of the server's direction in order.
    func serverBytes(_ bytes: ArraySlice<UInt8>, at time: Double, afterGap: Bool, emit: (Pair) -> Void) {
        guard !stopped else { return }
        if afterGap {
            return stop(.lost, "segments from the server lost at byte \(toClient.firstLossAt ?? 0); read up to there")
        }
        responses.feed(bytes, at: time)
        pump(emit: emit)
    }

    /// The server's direction reached its FIN: a response read until close is complete.
    func serverClosed(emit: (Pair) -> Void) {
        guard !stopped, !serverFinished else { return }
        serverFinished = true
        pump(emit: emit)
        guard !stopped else { return }
        let (message, _) = responses.finish()
        if let message, let request = takeWaiting() {
            emit(Pair(request: request, response: message))
            exchanges += 1
        }
    }

    /// Reads every complete message and pairs them.
    func pump(emit: (Pair) -> Void) {
        while !stopped {
            switch requests.next() {
            case .message(let m):
                waiting.append(m)
                waitingBodyBytes += m.body.count
                continue
            case .needMore: break
            case .failed(let reason, let overLimit):
                stop(overLimit ? .overLimit : .notHTTP, "the client sent \(reason)")
            case .upgraded: break
            }
            break
        }
        while !stopped, waitingHead < waiting.count {
            let request = waiting[waitingHead]
            let method = request.startLine.first.map(String.init) ?? ""
            switch responses.next(answersHead: method == "HEAD", answersConnect: method == "CONNECT") {
            case .message(let m):
                if m.isInterim { continue }
                _ = takeWaiting()
                exchanges += 1
                emit(Pair(request: request, response: m))
                continue
            case .upgraded(let m):
                _ = takeWaiting()
                exchanges += 1
                emit(Pair(request: request, response: m))
                stop(.upgraded, "switched to another protocol after exchange \(exchanges); not read further")
            case .needMore: break
            case .failed(let reason, let overLimit):
                stop(overLimit ? .overLimit : .notHTTP, "the server sent \(reason)")
            }
            break
        }
        if !stopped, bufferedBytes > limits.maxMessageBytes + limits.maxHeadBytes + 2 * limits.maxOutOfOrderBytes {
            stop(.overLimit, "over \(limits.maxMessageBytes) bytes held unanswered")
        }
    }

    /// The stream ends (both FINs, a reset, idle, or the end of the capture): losses are counted, a response read
    /// until close completes, and anything left half-read is reported.
    func close(reason: String?, emit: (Pair) -> Void) {
        var toServerBytes: [TCPDirection.Delivery] = []
        var toClientBytes: [TCPDirection.Delivery] = []
        let clientLost = toServer.close(deliver: &toServerBytes)
        let serverLost = toClient.close(deliver: &toClientBytes)
        for d in toServerBytes { clientBytes(d.bytes, at: d.time, afterGap: d.afterGap, emit: emit) }
        for d in toClientBytes { serverBytes(d.bytes, at: d.time, afterGap: d.afterGap, emit: emit) }
        if !stopped, clientLost > 0 {
            stop(.lost, "\(clientLost) bytes from the client never captured (at byte \(toServer.firstLossAt ?? 0))")
        }
        if !stopped, serverLost > 0 {
            stop(.lost, "\(serverLost) bytes from the server never captured (at byte \(toClient.firstLossAt ?? 0))")
        }
        if !stopped, toClient.isFinished || reason != nil { serverClosed(emit: emit) }
        for (direction, who) in [(toServer, "client"), (toClient, "server")] where direction.conflictingSegments > 0 {
            let count = direction.conflictingSegments
            note(
                .overlapConflict,
                "\(count) segment\(count == 1 ? "" : "s") from the \(who) overlapped bytes seen before with different "
                    + "bytes (first at byte \(direction.firstConflictAt ?? 0)); the first copy was read, as tshark does"
            )
        }
        if !stopped {
            if requests.hasPartialMessage || responses.hasPartialMessage || unanswered > 0 {
                note(.cutOff, "\(reason ?? "the stream closed") inside a message")
            }
        }
    }

    /// Requests read that got no response.
    var unanswered: Int { waiting.count - waitingHead }

    /// Takes the oldest request waiting for its response.
    private func takeWaiting() -> HTTPStreamParser.Message? {
        guard waitingHead < waiting.count else { return nil }
        let request = waiting[waitingHead]
        waiting[waitingHead].body = []  // its memory goes now, not at the next compaction
        waitingHead += 1
        waitingBodyBytes -= request.body.count
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        } else if waitingHead > 1024, waitingHead * 2 > waiting.count {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
        return request
    }

    /// TLS or HTTP/2 from their first bytes.
    static func foreignProtocol(_ bytes: ArraySlice<UInt8>) -> CaptureSummary.Problem.Kind? {
        let head = Array(bytes.prefix(24))
        if head.count >= 2, head[0] == 0x16, head[1] == 0x03 { return .tls }
        if head.starts(with: Array("PRI * HTTP/2.0".utf8)) { return .http2 }
        return nil
    }
}
