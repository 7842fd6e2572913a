internal import CCurl
import ConformCore
import Foundation

/// One exchange a ``PlainHTTPClient`` carries: the request's bytes as libcurl would write them, the sink the answer is
/// read into, its deadline and times, and the task waiting for it. Made on the sending thread, then touched by the
/// loop thread only.
final class PlainHTTPExchange: @unchecked Sendable {
    let method: String
    let url: String
    let target: PlainHTTPTarget
    /// The request as it goes on the wire: head and body.
    let bytes: [UInt8]
    let sink: ResponseSink
    let answersHead: Bool
    /// The request said `Connection: close`: the connection is not used again.
    let closesConnection: Bool
    let timeout: Duration
    /// When the exchange was admitted (its timeout counts from there, as a libcurl transfer's from being added).
    var started: ContinuousClock.Instant?
    var connectedAt: ContinuousClock.Instant?
    var firstByteAt: ContinuousClock.Instant?
    /// Whether the connection it went out on had carried an exchange before.
    var reused = false
    /// Whether it was sent again on a new connection after a reused one closed before answering.
    var retried = false
    /// The task waiting for the outcome; set once, resumed once.
    var continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>?

    init(
        _ request: HTTPRequest, target: PlainHTTPTarget, timeout: Duration, maxBodyBytes: Int, cancelled: CancelFlag
    ) {
        method = request.method.rawValue
        url = request.url
        self.target = target
        self.timeout = timeout
        answersHead = method == "HEAD"
        sink = ResponseSink(cancelled: cancelled, maxBodyBytes: maxBodyBytes)
        closesConnection = request.headerFields.contains { field in
            HTTPFields.sameName(field.name, "Connection")
                && field.value.split(separator: ",").contains {
                    $0.trimmingCharacters(in: .whitespaces).lowercased() == "close"
                }
        }
        bytes = Self.wire(request, target: target)
    }

    var cancelled: CancelFlag { sink.cancelled }

    /// Whether the client writes `request` as libcurl would: not when it asks for a transfer coding or an
    /// `Expect: 100-continue` handshake, which libcurl carries out itself.
    static func isPlain(_ request: HTTPRequest) -> Bool {
        !request.headerFields.contains {
            HTTPFields.sameName($0.name, "Transfer-Encoding") || HTTPFields.sameName($0.name, "Expect")
        }
    }

    /// The request line, `Host` unless the request sets its own, the request's fields in order with an empty value
    /// written `Name:`, `Content-Length` for a body (or a `POST`, `PUT` or `PATCH` without one), then the body: what
    /// ``CurlExchange/prepare`` has libcurl send. `HEAD` goes without a body.
    static func wire(_ request: HTTPRequest, target: PlainHTTPTarget) -> [UInt8] {
        let method = request.method.rawValue
        let head = method == "HEAD"
        let sendsBody = !head && (!request.body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + (sendsBody ? request.body.count : 0))
        func put(_ text: String) { bytes.append(contentsOf: text.utf8) }
        put(method)
        put(" ")
        put(target.target)
        put(" HTTP/1.1\r\n")
        if !request.headerFields.contains(where: { HTTPFields.sameName($0.name, "Host") }) {
            put("Host: ")
            put(target.host)
            put("\r\n")
        }
        for field in request.headerFields where !HTTPFields.sameName(field.name, "Content-Length") {
            put(field.name)
            if field.value.isEmpty {
                put(":\r\n")
            } else {
                put(": ")
                put(field.value)
                put("\r\n")
            }
        }
        if sendsBody {
            put("Content-Length: ")
            put(String(request.body.count))
            put("\r\n")
        }
        put("\r\n")
        if sendsBody { bytes.append(contentsOf: request.body) }
        return bytes
    }

    /// Hands the outcome to the waiting task.
    func complete(_ outcome: Result<HTTPResponse, TransportError>) {
        let waiting = continuation
        continuation = nil
        waiting?.resume(returning: outcome)
    }

    /// The response the sink holds, with the exchange's times.
    func response(version: String, at now: ContinuousClock.Instant) -> Result<HTTPResponse, TransportError> {
        guard let status = sink.status else {
            return .failure(TransportError(.invalidResponse, "\(method) \(url): the server sent no HTTP status line"))
        }
        let start = started ?? now
        func seconds(_ instant: ContinuousClock.Instant?) -> Double {
            guard let instant else { return 0 }
            let elapsed = start.duration(to: instant).components
            return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        }
        var response = HTTPResponse(
            status: HTTPStatus(status), headerFields: HTTPFields(sink.headers), body: sink.body,
            timing: HTTPTiming(
                total: seconds(now), connect: reused ? 0 : seconds(connectedAt), firstByte: seconds(firstByteAt),
                reusedConnection: reused))
        response.httpVersion = version
        return .success(response)
    }

    /// A failure of this exchange: `reason`, then the hint libcurl's mapping gives for `code`, so that an exchange
    /// fails alike whichever client carried it.
    func failure(_ code: CURLcode, _ reason: String) -> TransportError {
        if let overflow = sink.overflow {
            return TransportError(
                .tooLarge, "\(method) \(url): \(overflow); reading stopped there (raise the limit with --max-body)")
        }
        let (kind, hint) = CurlErrorMapping.classify(code)
        if kind == .connectionReset, let status = sink.status {
            // The answer had begun: the implementation cut its own answer short (as ``CurlExchange/finish`` says).
            return TransportError(
                .invalidResponse,
                "\(method) \(url): the implementation closed the connection in the middle of its answer (after the "
                    + "status line \(status)); \(reason)")
        }
        return TransportError(kind, "\(method) \(url): \(reason); \(hint)")
    }
}
