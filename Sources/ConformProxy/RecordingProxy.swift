import ConformCore
import ConformServer
import ConformTraffic
import ConformTransports
import Foundation

/// A reverse proxy that forwards each request to its upstream, answers with the upstream's response, and records both.
///
/// A path goes to the upstream of the profile's base it belongs to (Mobile Messaging's `/mobile/…` to `mobile`,
/// everything else to `backend`), so one listening port can stand in for every base URL of an app; with a single
/// upstream every request goes there.
public struct RecordingProxy: Sendable {
    /// Upstream base URLs by name (`mobile`, `backend`); `*` serves every path.
    public let upstreams: [String: String]
    public let transport: any Transport
    public let writer: RecordingWriter
    /// Called after each exchange is written (the redacted copy), for progress and live checks.
    public let onExchange: @Sendable (RecordedExchange) -> Void
    /// Called when a write fails; the client still gets its answer.
    public let onError: @Sendable (String) -> Void
    /// Called after an app event posted to ``eventsPath`` is written.
    public let onEvent: @Sendable (AppEvent) -> Void
    /// How many requests go upstream at once, how long others wait, and how long one exchange may take.
    public var limits: ProxyLimits { gate.limits }
    /// Requests being forwarded now, and requests waiting for their turn.
    public var load: (forwarding: Int, waiting: Int) { gate.load }
    /// The protocol the proxy stands in for: its refusals are in the profile's envelope.
    public let profile: ProtocolProfile
    /// The profile's envelope, in which the proxy's own refusals (and the server's, through the adapter) are written.
    public var errorEnvelope: ErrorEnvelope { profile.errorEnvelope }
    /// In forward mode (`record --forward`) the hosts requests may name; `nil` for a reverse proxy.
    public let forwardPolicy: ForwardPolicy?
    /// The limits of the server the proxy answers through: an upstream answer whose head would not fit them is
    /// answered (and recorded) as 502.
    public let serverLimits: HTTPServerLimits
    /// For an in-process transport only: the origin each request reached (``ReachedOrigin``), which the request is
    /// rebased onto instead of its upstream's base URL, so the implementation announces what the client can reach.
    /// The value comes from the client's `Host`: a network transport must never be given it.
    public var reachedOrigin: (@Sendable (HTTPRequest) -> String?)?
    /// In forward mode, told each request refused for naming a host that is not allowed (``ForwardNotices``).
    public var notices: ForwardNotices?
    let gate: AdmissionGate
    /// The transport to each upstream's base URL, its origin checked once rather than for every request.
    private let rebased: [String: RebasedTransport]

    public init(
        upstreams: [String: String], transport: any Transport, writer: RecordingWriter,
        onExchange: @escaping @Sendable (RecordedExchange) -> Void = { _ in },
        onError: @escaping @Sendable (String) -> Void = { _ in },
        onEvent: @escaping @Sendable (AppEvent) -> Void = { _ in }, limits: ProxyLimits = .default,
        profile: ProtocolProfile = .none, forward: ForwardPolicy? = nil, serverLimits: HTTPServerLimits = .default
    ) {
        self.serverLimits = serverLimits
        self.gate = AdmissionGate(limits: limits)
        self.forwardPolicy = forward
        self.profile = profile
        self.upstreams = upstreams.mapValues { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.transport = transport
        var rebased: [String: RebasedTransport] = [:]
        for base in self.upstreams.values {
            rebased[base] = RebasedTransport(base: base, inner: EndToEndTransport(inner: transport))
        }
        self.rebased = rebased
        self.writer = writer
        self.onExchange = onExchange
        self.onError = onError
        self.onEvent = onEvent
    }

    /// The upstream name for a request path: the profile's base the path belongs to, when that base has an
    /// upstream (or `*` serves every path), else the base that serves every other path, else the first upstream.
    public func upstreamName(for path: String) -> String {
        let base = profile.baseName(forPath: path)
        if upstreams["*"] != nil { return base ?? "*" }
        if let base, upstreams[base] != nil { return base }
        if let rest = profile.baseName(forPath: ""), upstreams[rest] != nil { return rest }
        return upstreams.keys.sorted().first ?? "*"
    }

    /// The server's handler for this proxy: ``forward(_:)``, started on the transport's own thread
    /// (``Transport/preferredTaskExecutor``, libcurl's loop for ``CurlTransport``), so that a request goes from the
    /// server's thread to the transport's and its answer straight back, and answered in the profile's envelope when
    /// the server refuses a request itself.
    public var handler: AsyncHandlerAdapter {
        AsyncHandlerAdapter(errorEnvelope: errorEnvelope, executor: transport.preferredTaskExecutor) {
            await self.forward($0)
        }
    }

    /// Forwards `request` (origin-form, as a server received it), records the exchange and returns the response.
    ///
    /// The way upstream is a stack of transport decorators: the deadline around rebasing onto the upstream's base URL
    /// around the end-to-end filter around ``transport``; the exchange is recorded before the answer is returned.
    ///
    /// Only origin-form targets (`/path?query`) are forwarded, and only to the configured upstream: anything else
    /// (an absolute URL, `@host/path`, `host/path`) is answered 400 and neither forwarded nor recorded. Requests wait
    /// their turn under ``limits``: 503 when too many wait or one waits too long, 504 when the upstream takes longer
    /// than the request deadline (recorded as the client saw it).
    public func forward(_ request: HTTPRequest) async -> HTTPResponse {
        if let forwardPolicy { return await forwardToOrigin(request, policy: forwardPolicy) }
        if let problem = Self.targetProblem(request.url) {
            return refusal(
                400, "BAD_REQUEST_TARGET", "request target \(HTTPSyntax.quoted(request.url)) \(problem)")
        }
        if Self.isEventsRequest(request) { return await receiveEventsOffTheIOThread(request) }
        let name = upstreamName(for: request.path)
        guard let base = upstreams[name] ?? upstreams["*"] else {
            return refusal(502, "BAD_GATEWAY", "no upstream is configured for \(HTTPSyntax.quoted(request.path))")
        }
        return await send(request, upstream: name, base: reachedOrigin?(request) ?? base)
    }

    /// Sends an origin-form `request` to `base` under the limits, recording it as `name`'s exchange.
    func send(_ request: HTTPRequest, upstream name: String, base: String) async -> HTTPResponse {
        let upstream = DeadlineTransport(
            inner: rebased[base] ?? RebasedTransport(base: base, inner: EndToEndTransport(inner: transport)),
            deadline: limits.requestDeadline)
        do {
            return try await gate.admitted {
                let exchange = await TransportExchange.sent(request, through: upstream)
                let response: HTTPResponse
                switch exchange.outcome {
                case .success(let answer): response = deliverable(answer, upstream: name, base: base)
                case .failure(let error): response = badGateway(upstream: name, base: base, error: error)
                }
                // Written before the client gets its answer, so a `kill -9` loses at most the exchanges in flight.
                await offTheIOThread(if: request.body.count + response.body.count) {
                    write(exchange, answered: response, upstream: name)
                }
                return response
            }
        } catch {
            switch error {
            case .queueFull:
                return busy("\(limits.maxInFlight) requests are being forwarded and \(limits.maxQueued) wait")
            case .waitedTooLong:
                return busy("no turn to forward came within \(limits.queueTimeout)")
            }
        }
    }

    /// The most body bytes an exchange may hold and still be recorded (redacted, encoded, written) on the thread its
    /// task runs on. ``handler`` starts each task on the transport's own thread (libcurl's loop), so that a request
    /// goes from the server's thread to curl's and its answer straight back: two wake-ups an exchange instead of
    /// four. A small exchange is recorded there too, in microseconds; a larger one would hold every other exchange's
    /// I/O for as long as its redaction takes (about a second for 7 MB of JSON), so it is recorded on
    /// ``HandlerExecutor``'s threads meanwhile.
    static let inlineRecordingBytes = 8 * 1024

    /// Runs `work` where it runs now when `bytes` fit ``inlineRecordingBytes``, else on ``HandlerExecutor``'s threads.
    func offTheIOThread<R: Sendable>(if bytes: Int, _ work: () -> R) async -> R {
        if bytes <= Self.inlineRecordingBytes { return work() }
        return await withTaskExecutorPreference(HandlerExecutor.shared) { work() }
    }

    /// ``receiveEvents(_:now:)``, off the I/O thread when the posted events are large.
    func receiveEventsOffTheIOThread(_ request: HTTPRequest) async -> HTTPResponse {
        await offTheIOThread(if: request.body.count) { receiveEvents(request) }
    }

    /// Why a request target is not one the proxy forwards: origin-form only, with no spaces or control characters.
    static func targetProblem(_ target: String) -> String? {
        if let problem = HTTPSyntax.urlFormProblem(target) { return problem }
        if target.utf8.first != UInt8(ascii: "/") {
            return "is absolute-form; this is a reverse proxy, so send origin-form targets (/path?query)"
        }
        return nil
    }

    /// 503 with the envelope and `Retry-After`, when the proxy has no turn for a request.
    func busy(_ reason: String) -> HTTPResponse {
        var response = refusal(503, "SERVICE_UNAVAILABLE", "the proxy is busy: \(reason); retry later")
        response.headerFields["Retry-After"] = "1"
        return response
    }

    /// Writes one exchange as the client saw it (`response`: the upstream's answer, or the proxy's 502 or 504 when
    /// there was none) and reports it.
    func write(_ exchange: TransportExchange, answered response: HTTPResponse, upstream name: String) {
        let request = exchange.request
        do {
            let written = try writer.append(
                upstream: name, request: request, response: response, startedAt: exchange.startedAt,
                durationMs: exchange.durationMs, flow: profile.flows.recordedFlow(request: request, response: response))
            onExchange(written)
        } catch {
            onError("cannot record exchange \(request.method) \(request.target): \(error)")
        }
    }

    /// `response`, or a 502 when its head is larger than the server can send (what the client gets and the recording
    /// keeps, alike).
    func deliverable(_ response: HTTPResponse, upstream name: String, base: String) -> HTTPResponse {
        if serverLimits.fitsResponseHead(response) { return response }
        return refusal(
            502, "BAD_GATEWAY",
            "upstream \(name) (\(base)) answered with a head larger than the \(serverLimits.maxResponseHeadBytes) "
                + "bytes the proxy passes on")
    }

    /// The profile's error envelope with 502, saying which upstream gave no response and why.
    func badGateway(upstream name: String, base: String, error: any Error) -> HTTPResponse {
        if let timeout = error as? TransportError, timeout.kind == .timeout {
            return refusal(504, "GATEWAY_TIMEOUT", "upstream \(name) (\(base)) gave no response in time: \(error)")
        }
        return refusal(502, "BAD_GATEWAY", "upstream \(name) (\(base)) gave no response: \(error)")
    }

    /// Removes the headers that belong to one connection from the request and the response, and the response's
    /// timings, which describe the proxy's own connection upstream.
    struct EndToEndTransport: TransportDecorator {
        let inner: any Transport

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            var outgoing = request
            outgoing.headerFields = RecordingProxy.endToEnd(request.headerFields)
            var response = try await inner.send(outgoing)
            response.headerFields = RecordingProxy.endToEnd(response.headerFields)
            response.timing = nil
            return response
        }
    }

    /// `fields` without the headers of the connection they came on (what a recording keeps of a response's header
    /// fields).
    public static func endToEnd(_ fields: HTTPFields) -> HTTPFields { fields.endToEnd }
}
