import ConformCore
import Foundation

/// A reverse proxy that forwards each request to its upstream, answers with the upstream's response, and records both.
///
/// Mobile-API paths (`/mobile/…`) go to the `mobile` upstream and everything else to `backend`, so one listening
/// port can stand in for both base URLs of an app; with a single upstream every request goes there.
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

    /// Headers that belong to one connection and are never forwarded.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length",
    ]

    public init(
        upstreams: [String: String], transport: any Transport, writer: RecordingWriter,
        onExchange: @escaping @Sendable (RecordedExchange) -> Void = { _ in },
        onError: @escaping @Sendable (String) -> Void = { _ in },
        onEvent: @escaping @Sendable (AppEvent) -> Void = { _ in }
    ) {
        self.upstreams = upstreams.mapValues { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.transport = transport
        self.writer = writer
        self.onExchange = onExchange
        self.onError = onError
        self.onEvent = onEvent
    }

    /// The upstream name for a request path.
    public func upstreamName(for path: String) -> String {
        if upstreams["*"] != nil {
            return path.hasPrefix("/mobile/") ? RecordedExchange.mobileUpstream : RecordedExchange.backendUpstream
        }
        if path.hasPrefix("/mobile/"), upstreams[RecordedExchange.mobileUpstream] != nil {
            return RecordedExchange.mobileUpstream
        }
        if upstreams[RecordedExchange.backendUpstream] != nil { return RecordedExchange.backendUpstream }
        return upstreams.keys.sorted().first ?? RecordedExchange.mobileUpstream
    }

    /// Forwards `request` (origin-form, as a server received it), records the exchange and returns the response.
    public func forward(_ request: HTTPRequest) async -> HTTPResponse {
        if Self.isEventsRequest(request) { return receiveEvents(request) }
        let name = upstreamName(for: request.path)
        let base = upstreams[name] ?? upstreams["*"] ?? ""
        var outgoing = request
        outgoing.url = base + request.target
        outgoing.headerFields = HTTPFields(
            request.headerFields.fields.filter { !Self.hopByHop.contains($0.name.lowercased()) })
        let started = Date()
        let clock = ContinuousClock()
        let start = clock.now
        var response: HTTPResponse
        do {
            response = try await transport.send(outgoing)
        } catch {
            let envelope: JSONValue = [
                "requestError": [
                    "serviceException": [
                        "messageId": "BAD_GATEWAY",
                        "text": .string("conform proxy: upstream \(name) (\(base)) gave no response: \(error)"),
                    ]
                ]
            ]
            response = .json(502, envelope)
        }
        response.headerFields = HTTPFields(
            response.headerFields.fields.filter { !Self.hopByHop.contains($0.name.lowercased()) })
        response.timing = nil
        let elapsed = clock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        do {
            let written = try writer.append(
                upstream: name, request: request, response: response, startedAt: started, durationMs: ms)
            onExchange(written)
        } catch {
            onError("cannot record exchange \(request.method) \(request.target): \(error)")
        }
        return response
    }
}
