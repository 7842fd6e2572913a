import ConformCore
import Foundation

/// One exchange as a ``RecordingTransport`` saw it: the request, its response or why there was none, and when.
public struct TransportExchange: Sendable {
    /// The request as the decorator received it, before any inner decorator changed it.
    public var request: HTTPRequest
    /// The response the inner transport returned, or the error it threw.
    public var outcome: Result<HTTPResponse, any Error>
    /// Wall-clock time the exchange started.
    public var startedAt: Date
    /// How long the inner transport took.
    public var duration: Duration

    /// Creates an exchange record.
    public init(request: HTTPRequest, outcome: Result<HTTPResponse, any Error>, startedAt: Date, duration: Duration) {
        self.request = request
        self.outcome = outcome
        self.startedAt = startedAt
        self.duration = duration
    }

    /// ``duration`` in milliseconds, the unit recordings keep.
    public var durationMs: Double { duration.inMilliseconds }

    /// Sends `request` through `transport` and keeps what came back (or why nothing did) and when.
    public static func sent(_ request: HTTPRequest, through transport: any Transport) async -> TransportExchange {
        let startedAt = Date()
        let start = ContinuousClock.now
        let outcome: Result<HTTPResponse, any Error>
        do {
            outcome = .success(try await transport.send(request))
        } catch {
            outcome = .failure(error)
        }
        return TransportExchange(
            request: request, outcome: outcome, startedAt: startedAt, duration: ContinuousClock.now - start)
    }
}

/// Hands every exchange sent through `inner` to `record`, then returns (or rethrows) what `inner` gave.
///
/// What a record becomes is the caller's: the recording proxy writes each one, redacted, to a recording.
public struct RecordingTransport: TransportDecorator {
    /// The transport that sends the request.
    public let inner: any Transport
    /// Called once per exchange, after `inner` answered or failed, before the caller sees the result.
    public let record: @Sendable (TransportExchange) -> Void

    /// Creates a decorator that reports every exchange of `inner` to `record`.
    public init(inner: any Transport, record: @escaping @Sendable (TransportExchange) -> Void) {
        self.inner = inner
        self.record = record
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let exchange = await TransportExchange.sent(request, through: inner)
        record(exchange)
        return try exchange.outcome.get()
    }
}
