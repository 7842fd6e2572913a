import ConformCore
import ConformTraffic
import Foundation

/// One exchange read from a capture: the request and response as the wire carried them (transfer coding undone,
/// connection headers of the response removed as the recorder removes them), timed by the packets.
public struct CapturedExchange: Sendable, Hashable {
    /// Which upstream the stream's server is (``CaptureOptions/upstreams``), or by path as the recorder names it.
    public var upstream: String
    public var request: HTTPRequest
    public var response: HTTPResponse
    /// The capture time of the request's first byte.
    public var startedAt: Date
    /// From the request's first byte to the response's last, in milliseconds.
    public var durationMs: Double
    public var client: Endpoint
    public var server: Endpoint
    /// The stream's number in the capture (1-based, in the order streams were first seen).
    public var stream: Int
    /// Whether the exchange was read after resynchronising on its stream (``CaptureOptions/resync``): the capture
    /// began inside the stream, or lost bytes of it, and where messages begin was found by their start lines.
    public var resynchronised = false
}

/// Which streams to read and how to name them.
public struct CaptureOptions: Sendable, Hashable {
    /// Server ports to read (the port a SYN went to); empty reads every stream.
    public var ports: Set<UInt16> = []
    /// Upstream names by server endpoint (`mobile` → `10.0.0.5:8080`); a stream to another server is named by path.
    public var upstreams: [Endpoint: String] = [:]
    public var limits: CaptureLimits = .default
    /// Whether a stream the capture began inside (no SYN), or that lost segments, is read from the first whole
    /// request line in the client's direction and the first status line after it in the server's; the exchanges
    /// read that way are marked ``CapturedExchange/resynchronised``. Off, such a stream is reported and not read.
    public var resync = false

    public init(
        ports: Set<UInt16> = [], upstreams: [Endpoint: String] = [:], limits: CaptureLimits = .default,
        resync: Bool = false
    ) {
        self.ports = ports
        self.upstreams = upstreams
        self.limits = limits
        self.resync = resync
    }
}

/// Turns packets into exchanges: TCP streams followed from their SYN, reassembled both ways and read as HTTP/1.1.
/// Feed packets in capture order with ``consume(time:linkType:_:)`` and call ``finish()`` once at the end; exchanges
/// reach `onExchange` as their responses complete.
public final class CaptureReader {
    public let options: CaptureOptions
    public private(set) var summary = CaptureSummary()
    private let onExchange: (CapturedExchange) -> Void
    private var streams: [StreamKey: TCPStream] = [:]
    /// Streams seen without their SYN, so each is counted once.
    private var headless: Set<StreamKey> = []
    /// Streams in the order they began, from ``halfOpenHead`` on, to give up the oldest that carried no data yet
    /// when the table is full; an entry whose stream ended or saw data is skipped when reached.
    private var halfOpen: [(key: StreamKey, number: Int)] = []
    private var halfOpenHead = 0
    private var buffered = 0
    private var lastSweep: Double = 0
    private var now: Double = 0

    /// The two ends of a connection, in a fixed order.
    struct StreamKey: Hashable {
        var a: Endpoint
        var b: Endpoint
        init(_ x: Endpoint, _ y: Endpoint) {
            if (x.address, x.port) < (y.address, y.port) {
                a = x
                b = y
            } else {
                a = y
                b = x
            }
        }
    }

    public init(options: CaptureOptions = CaptureOptions(), onExchange: @escaping (CapturedExchange) -> Void) {
        self.options = options
        self.onExchange = onExchange
    }

    /// Reads one packet of link type `linkType` captured at `time` (seconds since 1970).
    public func consume(time: Double, linkType: Int32, _ bytes: UnsafeRawBufferPointer) {
        summary.packets += 1
        now = max(now, time)
        switch PacketDecoder.decode(linkType: linkType, bytes) {
        case .segment(let segment): consume(segment, at: time)
        case .notTCP: summary.otherPackets += 1
        case .fragment: summary.fragments += 1
        case .malformed: summary.malformedPackets += 1
        }
        if now - lastSweep >= 1 {
            lastSweep = now
            sweepIdle()
        }
    }

    /// Reads one decoded segment.
    public func consume(_ segment: TCPSegment, at time: Double) {
        summary.truncatedBytes += segment.missingBytes
        let key = StreamKey(segment.source, segment.destination)
        if segment.has(TCPSegment.syn), !segment.has(TCPSegment.ack) {
            guard selected(server: segment.destination) else {
                summary.filteredSegments += 1
                return
            }
            if let existing = streams[key] {
                if existing.client == segment.source, existing.toServer.initialSequence == segment.sequence {
                    existing.lastSeen = time
                    return  // a retransmitted SYN
                }
                end(key, existing, reason: "a new connection reused the ports")
            }
            guard makeRoom() else {
                summary.streamsRefused += 1
                return
            }
            summary.streams += 1
            headless.remove(key)
            let created = TCPStream(
                number: summary.streams, client: segment.source, server: segment.destination, limits: options.limits,
                time: time, resync: options.resync)
            created.toServer.initialSequence = segment.sequence
            streams[key] = created
            rememberHalfOpen(key, created.number)
            return
        }
        guard let existing = streams[key] else {
            guard selected(server: segment.destination) || selected(server: segment.source) else {
                summary.filteredSegments += 1
                return
            }
            if segment.has(TCPSegment.syn), segment.has(TCPSegment.ack) {
                // The SYN itself was not captured, but the SYN-ACK names the client's first sequence number.
                guard selected(server: segment.source), makeRoom() else {
                    summary.filteredSegments += 1
                    return
                }
                summary.streams += 1
                headless.remove(key)
                let created = TCPStream(
                    number: summary.streams, client: segment.destination, server: segment.source,
                    limits: options.limits, time: time, resync: options.resync)
                created.toServer.initialSequence = segment.acknowledgment &- 1
                created.toClient.initialSequence = segment.sequence
                streams[key] = created
                rememberHalfOpen(key, created.number)
                return
            }
            guard !segment.payload.isEmpty, !headless.contains(key) else { return }
            let (client, server) = sides(segment)
            if options.resync {
                guard makeRoom() else {
                    summary.streamsRefused += 1
                    return
                }
                summary.streams += 1
                summary.streamsMissingStart += 1
                let created = TCPStream(
                    number: summary.streams, client: client, server: server, limits: options.limits, time: time,
                    resync: true, beganInside: true)
                streams[key] = created
                follow(segment, in: created, key: key, at: time)
                return
            }
            guard headless.count < options.limits.maxStreams else { return }
            headless.insert(key)
            summary.streams += 1
            summary.streamsMissingStart += 1
            report(
                CaptureSummary.Stream(
                    number: summary.streams, client: client, server: server, exchanges: 0,
                    problems: [
                        CaptureSummary.Problem(
                            kind: .missingStart,
                            detail: "the capture began inside this stream (no SYN): not read, nothing guessed "
                                + "(--resync reads it from its first whole request)")
                    ], unanswered: 0))
            return
        }
        follow(segment, in: existing, key: key, at: time)
    }

    /// Reads one segment of a stream followed.
    private func follow(_ segment: TCPSegment, in stream: TCPStream, key: StreamKey, at time: Double) {
        stream.lastSeen = time
        if !segment.payload.isEmpty { stream.sawData = true }
        let fromClient = segment.source == stream.client
        let emit = { (pair: TCPStream.Pair) in self.emit(pair, stream) }
        if segment.has(TCPSegment.syn) {
            if !fromClient, stream.toClient.initialSequence == nil {
                stream.toClient.initialSequence = segment.sequence
            }
            if fromClient || segment.payload.isEmpty { return }
        }
        if segment.has(TCPSegment.ack) {
            if fromClient {
                stream.toClient.acknowledge(segment.acknowledgment)
            } else {
                stream.toServer.acknowledge(segment.acknowledgment)
            }
        }
        let limit = options.limits.maxOutOfOrderBytes
        let fin = segment.has(TCPSegment.fin)
        // Data on a SYN starts after it: the SYN takes one sequence number.
        let sequence = segment.has(TCPSegment.syn) ? segment.sequence &+ 1 : segment.sequence
        if stream.beganInside, !segment.has(TCPSegment.syn) {
            // A stream the capture began inside: each direction counts from the first segment seen of it.
            if fromClient, stream.toServer.initialSequence == nil {
                stream.toServer.initialSequence = segment.sequence &- 1
            } else if !fromClient, stream.toClient.initialSequence == nil {
                stream.toClient.initialSequence = segment.sequence &- 1
            }
        }
        var delivered: [TCPDirection.Delivery] = []
        if fromClient {
            _ = stream.toServer.accept(
                sequence: sequence, payload: segment.payload, fin: fin, time: time, limit: limit,
                deliver: &delivered)
            for d in delivered { stream.clientBytes(d.bytes, at: d.time, afterGap: d.afterGap, emit: emit) }
        } else if stream.toClient.initialSequence == nil {
            if !segment.payload.isEmpty {
                stream.stop(.missingStart, "the server's SYN-ACK was not captured: its bytes cannot be placed")
            }
        } else {
            _ = stream.toClient.accept(
                sequence: sequence, payload: segment.payload, fin: fin, time: time, limit: limit,
                deliver: &delivered)
            for d in delivered { stream.serverBytes(d.bytes, at: d.time, afterGap: d.afterGap, emit: emit) }
            if stream.toClient.isFinished { stream.serverClosed(emit: emit) }
        }
        if segment.has(TCPSegment.rst) {
            end(key, stream, reason: "reset (RST)")
            return
        }
        if stream.isClosed {
            end(key, stream, reason: nil)
            return
        }
        account(stream)
    }

    /// Ends every stream still open (the capture ended) and returns the summary.
    public func finish() -> CaptureSummary {
        for (key, stream) in streams.sorted(by: { $0.value.number < $1.value.number }) {
            end(key, stream, reason: "the capture ended")
        }
        return summary
    }

    /// Whether one more stream may be followed: when ``CaptureLimits/maxStreams`` are open, the oldest stream that
    /// carried no data yet (a SYN nothing followed, as a SYN flood leaves thousands of) is given up for it.
    private func makeRoom() -> Bool {
        guard streams.count >= options.limits.maxStreams else { return true }
        while halfOpenHead < halfOpen.count {
            let (key, number) = halfOpen[halfOpenHead]
            halfOpenHead += 1
            if halfOpenHead > 1024, halfOpenHead * 2 > halfOpen.count {
                halfOpen.removeFirst(halfOpenHead)
                halfOpenHead = 0
            }
            guard let stream = streams[key], stream.number == number, !stream.sawData else { continue }
            summary.halfOpenExpired += 1
            end(key, stream, reason: nil)
            return true
        }
        return false
    }

    /// Adds a new stream to ``halfOpen``; entries of streams that ended or saw data are pruned when they outnumber
    /// the table, so the list stays within twice ``CaptureLimits/maxStreams`` whatever the capture holds.
    private func rememberHalfOpen(_ key: StreamKey, _ number: Int) {
        halfOpen.append((key, number))
        guard halfOpen.count - halfOpenHead > 2 * max(options.limits.maxStreams, 16) else { return }
        halfOpen = halfOpen[halfOpenHead...].filter { entry in
            streams[entry.key].map { $0.number == entry.number && !$0.sawData } ?? false
        }
        halfOpenHead = 0
    }

    private func selected(server: Endpoint) -> Bool {
        options.ports.isEmpty || options.ports.contains(server.port)
    }

    /// The client and the server of a stream seen without its SYN: the end on a selected port (``CaptureOptions/
    /// ports``) is the server; else the sender of a segment that begins with a status line is the server and that
    /// of one that begins with a request line the client; else the end outside Linux's ephemeral ports (32768 to
    /// 60999, where clients connect from), else the end with the lower port, the destination on a tie.
    private func sides(_ segment: TCPSegment) -> (client: Endpoint, server: Endpoint) {
        let source = segment.source
        let destination = segment.destination
        let fromServer = (destination, source)
        let fromClient = (source, destination)
        let sourceServes = !options.ports.isEmpty && options.ports.contains(source.port)
        let destinationServes = !options.ports.isEmpty && options.ports.contains(destination.port)
        if sourceServes != destinationServes { return sourceServes ? fromServer : fromClient }
        if let lf = segment.payload.firstIndex(of: 0x0A) {
            let line = Array(segment.payload[...lf])
            if ResyncScanner.isStatusLine(line) { return fromServer }
            if ResyncScanner.isRequestLine(line) { return fromClient }
        }
        let ephemeral: ClosedRange<UInt16> = 32768...60999
        if ephemeral.contains(source.port) != ephemeral.contains(destination.port) {
            return ephemeral.contains(source.port) ? fromClient : fromServer
        }
        return source.port < destination.port ? fromServer : fromClient
    }

    private func account(_ stream: TCPStream) {
        let now = stream.bufferedBytes
        buffered += now - stream.accountedBytes
        stream.accountedBytes = now
        summary.peakBufferedBytes = max(summary.peakBufferedBytes, buffered)
        while buffered > options.limits.maxBufferedBytes,
            let (key, largest) = streams.max(by: { $0.value.accountedBytes < $1.value.accountedBytes })
        {
            largest.stop(
                .overLimit,
                "dropped: all streams together held over \(options.limits.maxBufferedBytes) bytes and this one most")
            end(key, largest, reason: "dropped")
        }
    }

    private func sweepIdle() {
        let limit = options.limits.idleSeconds
        let idle = streams.filter { now - $0.value.lastSeen > limit }
        for (key, stream) in idle.sorted(by: { $0.value.number < $1.value.number }) {
            end(key, stream, reason: "no packet for \(Int(limit)) s")
        }
    }

    private func end(_ key: StreamKey, _ stream: TCPStream, reason: String?) {
        stream.close(reason: reason) { pair in self.emit(pair, stream) }
        streams.removeValue(forKey: key)
        // With resync, a stray segment after the end (a retransmission, the rest of a stream dropped at a limit)
        // does not start the stream again as one the capture began inside; a new connection's SYN does.
        if options.resync, headless.count < options.limits.maxStreams { headless.insert(key) }
        buffered -= stream.accountedBytes
        stream.accountedBytes = 0
        summary.duplicateSegments += stream.toServer.duplicateSegments + stream.toClient.duplicateSegments
        summary.reorderedSegments += stream.toServer.reorderedSegments + stream.toClient.reorderedSegments
        summary.lostBytes += stream.toServer.lostBytes + stream.toClient.lostBytes
        summary.conflictingSegments += stream.toServer.conflictingSegments + stream.toClient.conflictingSegments
        summary.reassemblySteps += stream.toServer.steps + stream.toClient.steps
        if stream.resynchronisedExchanges > 0 {
            summary.resynchronisedExchanges += stream.resynchronisedExchanges
            summary.resynchronisedStreamCount += 1
            if summary.resynchronisedStreams.count < options.limits.maxReportedStreams {
                summary.resynchronisedStreams.append(
                    CaptureSummary.Resynchronised(
                        number: stream.number, client: stream.client, server: stream.server,
                        exchanges: stream.resynchronisedExchanges, reason: stream.resyncReason ?? "",
                        skippedClientBytes: stream.skippedClientBytes, skippedServerBytes: stream.skippedServerBytes))
            }
        }
        if !stream.problems.isEmpty {
            report(
                CaptureSummary.Stream(
                    number: stream.number, client: stream.client, server: stream.server, exchanges: stream.exchanges,
                    problems: stream.problems, unanswered: stream.unanswered))
        }
    }

    private func report(_ stream: CaptureSummary.Stream) {
        summary.streamsWithProblems += 1
        for kind in Set(stream.problems.map(\.kind.name)) { summary.problemCounts[kind, default: 0] += 1 }
        if summary.problemStreams.count < options.limits.maxReportedStreams { summary.problemStreams.append(stream) }
    }

    private func emit(_ pair: TCPStream.Pair, _ stream: TCPStream) {
        let request = pair.request
        let response = pair.response
        let target = request.startLine.count > 1 ? String(request.startLine[1]) : "/"
        let httpRequest = HTTPRequest(
            method: HTTPMethod(String(request.startLine[0])), url: target, headerFields: request.headerFields,
            body: Data(request.body))
        let status = response.startLine.count > 1 ? Int(response.startLine[1]) ?? 0 : 0
        let httpResponse = HTTPResponse(
            status: HTTPStatus(status), headerFields: response.headerFields.endToEnd,
            body: Data(response.body))
        let upstream =
            options.upstreams[stream.server]
            ?? (httpRequest.path.hasPrefix("/mobile/")
                ? RecordedExchange.mobileUpstream : RecordedExchange.backendUpstream)
        summary.exchanges += 1
        onExchange(
            CapturedExchange(
                upstream: upstream, request: httpRequest, response: httpResponse,
                startedAt: Date(timeIntervalSince1970: request.firstByteAt),
                durationMs: max(0, response.lastByteAt - request.firstByteAt) * 1000, client: stream.client,
                server: stream.server, stream: stream.number, resynchronised: pair.resynchronised))
    }
}
