import ConformCore
import Foundation

/// One TCP connection followed from its SYN: both directions put back in order and read as HTTP/1.1, requests
/// paired with responses in order (keep-alive and pipelining are the same thing here). With ``resync``, a stream
/// the capture began inside, or one that lost bytes, is read again from the first whole request line in the
/// client's direction and the first status line after it in the server's (``ResyncScanner``).
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
    /// Whether a stream without its start, or with lost bytes, is resynchronised rather than given up.
    let resync: Bool
    /// Whether the capture holds no SYN of the stream: each direction counts from its first segment seen.
    let beganInside: Bool
    /// While a direction looks for where its messages begin, what looks.
    private var clientScan: ResyncScanner?
    private var serverScan: ResyncScanner?
    /// Why the stream was first resynchronised; exchanges read from then on are marked.
    private(set) var resyncReason: String?
    /// Exchanges read after resynchronising.
    private(set) var resynchronisedExchanges = 0
    /// Bytes the scans skipped before the start lines they found, in each direction.
    private(set) var skippedClientBytes = 0
    private(set) var skippedServerBytes = 0
    /// From the request line the client's direction resynchronised at until the first exchange after it: the bytes
    /// read since (up to ``CaptureLimits/maxResyncBytes``), the length of that line, and how many lines were taken
    /// for request lines and proved not to be since resynchronising. A head that does not parse, or what follows it
    /// not parsing, shows the line was not a request's (a body's text): the bytes are looked through again from
    /// the line after it, at most ``ResyncScanner/maxCandidates`` times.
    private var clientTrial: (chunks: [(bytes: [UInt8], time: Double)], lineLength: Int, size: Int)?
    private var rejectedCandidates = 0

    /// A request and its response, as read; `resynchronised` when read after resynchronising.
    struct Pair {
        var request: HTTPStreamParser.Message
        var response: HTTPStreamParser.Message
        var resynchronised = false
    }

    /// `beganInside`: the capture holds no SYN of the stream, which is read from where its messages are found
    /// to begin (only with `resync`).
    init(
        number: Int, client: Endpoint, server: Endpoint, limits: CaptureLimits, time: Double, resync: Bool = false,
        beganInside: Bool = false
    ) {
        self.number = number
        self.client = client
        self.server = server
        self.limits = limits
        self.lastSeen = time
        self.resync = resync
        self.beganInside = beganInside
        requests = HTTPStreamParser(role: .request, limits: limits)
        responses = HTTPStreamParser(role: .response, limits: limits)
        if beganInside {
            // The first bytes are the middle of whatever was on the wire: not a protocol's first bytes.
            sawClientBytes = true
            resyncReason = "the capture began inside it (no SYN)"
            clientScan = ResyncScanner(role: .request, limits: limits, atLineStart: true)
            serverScan = ResyncScanner(role: .response, limits: limits, atLineStart: true)
        }
    }

    /// Bytes the stream holds in memory now.
    var bufferedBytes: Int {
        toServer.pendingBytes + toClient.pendingBytes + requests.bufferedBytes + responses.bufferedBytes
            + waitingBodyBytes + (clientScan?.bufferedBytes ?? 0) + (serverScan?.bufferedBytes ?? 0)
            + (clientTrial?.size ?? 0)
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
        if afterGap, !goesOn(afterLossFromClient: true, emit: emit) { return }
        if clientScan != nil { return scanClient(bytes, at: time, emit: emit) }
        if var trial = clientTrial {
            trial.chunks.append((Array(bytes), time))
            trial.size += bytes.count
            clientTrial = trial.size > limits.maxResyncBytes ? nil : trial
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
        if afterGap, !goesOn(afterLossFromClient: false, emit: emit) { return }
        if serverScan != nil { return scanServer(bytes, at: time, emit: emit) }
        responses.feed(bytes, at: time)
        pump(emit: emit)
    }

    /// Bytes of one direction were lost: the stream stops there, unless it resynchronises; false when it stopped.
    private func goesOn(afterLossFromClient fromClient: Bool, emit: (Pair) -> Void) -> Bool {
        let at = (fromClient ? toServer.firstLossAt : toClient.firstLossAt) ?? 0
        let lost = "segments from the \(fromClient ? "client" : "server") lost at byte \(at)"
        guard resync else {
            stop(.lost, "\(lost); read up to there")
            return false
        }
        resynchronise(after: lost, gapFromClient: fromClient, emit: emit)
        return true
    }

    /// The server's direction reached its FIN: a response read until close is complete.
    func serverClosed(emit: (Pair) -> Void) {
        guard !stopped, !serverFinished else { return }
        serverFinished = true
        pump(emit: emit)
        guard !stopped else { return }
        guard serverScan == nil else { return }
        let (message, _) = responses.finish()
        if let message, let request = takeWaiting() { answer(request, with: message, emit: emit) }
    }

    /// Hands a request and its response on, marked when read after resynchronising.
    private func answer(
        _ request: HTTPStreamParser.Message, with response: HTTPStreamParser.Message, emit: (Pair) -> Void
    ) {
        exchanges += 1
        clientTrial = nil
        if resyncReason != nil { resynchronisedExchanges += 1 }
        emit(Pair(request: request, response: response, resynchronised: resyncReason != nil))
    }

    /// Lost bytes with ``resync``: what was half-read is dropped, requests waiting are given up (their responses
    /// may be among the lost bytes, and one taken for another's would pair them wrongly), and both directions look
    /// for where their messages begin again: the direction with the gap from its next byte on, the other from its
    /// next byte when it is at a message boundary, else from its next line.
    private func resynchronise(after reason: String, gapFromClient: Bool, emit: (Pair) -> Void) {
        let dropped = unanswered
        note(
            .lost,
            reason + "; resynchronised after them"
                + (dropped > 0 ? " (\(dropped) request\(dropped == 1 ? "" : "s") before them given up)" : ""))
        if resyncReason == nil { resyncReason = reason }
        clientTrial = nil
        rejectedCandidates = 0
        // What the other direction read but did not use yet, when it begins at a message start, is looked at again.
        let clientUnread = gapFromClient || clientScan != nil ? nil : requests.unreadAtMessageStart()
        let serverUnread = !gapFromClient || serverScan != nil ? nil : responses.unreadAtMessageStart()
        requests = HTTPStreamParser(role: .request, limits: limits)
        responses = HTTPStreamParser(role: .response, limits: limits)
        waiting.removeAll()
        waitingHead = 0
        waitingBodyBytes = 0
        if gapFromClient || clientScan == nil {
            clientScan = ResyncScanner(
                role: .request, limits: limits, atLineStart: gapFromClient || clientUnread != nil)
        }
        if !gapFromClient || serverScan == nil {
            serverScan = ResyncScanner(
                role: .response, limits: limits, atLineStart: !gapFromClient || serverUnread != nil)
        } else {
            serverScan?.notBefore = nil
        }
        for piece in serverUnread ?? [] where serverScan != nil { scanServer(piece.bytes, at: piece.time, emit: emit) }
        for piece in clientUnread ?? [] where clientScan != nil { scanClient(piece.bytes, at: piece.time, emit: emit) }
    }

    /// Client bytes while looking for the first whole request line.
    private func scanClient(_ bytes: ArraySlice<UInt8>, at time: Double, emit: (Pair) -> Void) {
        guard
            let start = scan(
                \.clientScan, bytes, at: time,
                missing: "no whole HTTP/1.x request line in the first \(limits.maxResyncBytes) bytes from the client")
        else { return }
        skippedClientBytes += start.skipped
        serverScan?.notBefore = start.time
        let lineLength = (start.bytes.firstIndex(of: 0x0A) ?? start.bytes.count - 1) + 1
        clientTrial = ([(start.bytes, start.time)], lineLength, start.bytes.count)
        requests.feed(start.bytes[...], at: start.time)
        pump(emit: emit)
    }

    /// The line the client's direction resynchronised at proved not to be a request line: what was read from it
    /// on is given up, and looked through again from the line after it; the server's direction, which cannot
    /// have answered it yet (no exchange came), looks again for the response to whatever is found.
    private func lookAgain(
        after trial: (chunks: [(bytes: [UInt8], time: Double)], lineLength: Int, size: Int), emit: (Pair) -> Void
    ) {
        rejectedCandidates += 1
        clientTrial = nil
        skippedClientBytes += trial.lineLength
        let serverUnread = serverScan == nil ? responses.unreadAtMessageStart() : nil
        requests = HTTPStreamParser(role: .request, limits: limits)
        waiting.removeAll()
        waitingHead = 0
        waitingBodyBytes = 0
        if serverScan == nil {
            responses = HTTPStreamParser(role: .response, limits: limits)
            serverScan = ResyncScanner(role: .response, limits: limits, atLineStart: serverUnread != nil)
            for piece in serverUnread ?? [] { scanServer(piece.bytes, at: piece.time, emit: emit) }
        } else {
            serverScan?.notBefore = nil
        }
        clientScan = ResyncScanner(role: .request, limits: limits, atLineStart: true)
        for (i, chunk) in trial.chunks.enumerated() where !stopped {
            clientBytes(
                i == 0 ? chunk.bytes[trial.lineLength...] : chunk.bytes[...], at: chunk.time, afterGap: false,
                emit: emit)
        }
    }

    /// Server bytes while looking for the status line of the response to the request the client's direction
    /// resynchronised at: the first one that came after that request's first byte.
    private func scanServer(_ bytes: ArraySlice<UInt8>, at time: Double, emit: (Pair) -> Void) {
        guard
            let start = scan(
                \.serverScan, bytes, at: time,
                missing: "no HTTP/1.x status line in the first \(limits.maxResyncBytes) bytes from the server "
                    + "after the first whole request")
        else { return }
        skippedServerBytes += start.skipped
        responses.feed(start.bytes[...], at: start.time)
        pump(emit: emit)
    }

    /// Feeds one direction's scanner: it is kept while it needs more, and the stream stops when it gives up
    /// (`missing` says what it did not find); once it finds a start line it is done, and what it found comes back
    /// (the bytes from the start line on, when they came, and how many it skipped before them).
    private func scan(
        _ scanner: ReferenceWritableKeyPath<TCPStream, ResyncScanner?>, _ bytes: ArraySlice<UInt8>, at time: Double,
        missing: @autoclosure () -> String
    ) -> (bytes: [UInt8], time: Double, skipped: Int)? {
        guard !stopped, var scan = self[keyPath: scanner] else { return nil }
        switch scan.feed(bytes, at: time) {
        case .needMore:
            self[keyPath: scanner] = scan
        case .gaveUp:
            self[keyPath: scanner] = nil
            stop(.missingStart, "\(resyncReason ?? "resynchronising"): \(missing()); not read")
        case .found(let found, let at):
            self[keyPath: scanner] = nil
            return (found, at, scan.skipped)
        }
        return nil
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
                if !overLimit, let trial = clientTrial, rejectedCandidates < ResyncScanner.maxCandidates {
                    return lookAgain(after: trial, emit: emit)
                }
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
                // The first exchange after resynchronising: the bytes after its request must go on as requests do.
                if let trial = clientTrial, !requests.unreadCouldBeginARequest,
                    rejectedCandidates < ResyncScanner.maxCandidates
                {
                    return lookAgain(after: trial, emit: emit)
                }
                _ = takeWaiting()
                answer(request, with: m, emit: emit)
                continue
            case .upgraded(let m):
                _ = takeWaiting()
                answer(request, with: m, emit: emit)
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
        if !stopped, let scan = clientScan {
            note(
                .missingStart,
                "\(resyncReason ?? "resynchronising"): no whole HTTP/1.x request line from the client followed "
                    + "(\(scan.skipped + scan.bufferedBytes) bytes looked through); not read")
        } else if !stopped {
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
