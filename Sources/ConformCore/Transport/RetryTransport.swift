import Synchronization

/// What `--retry N` retries, how often and how long it waits between tries.
///
/// Only what says nothing about the implementation is retried: a gateway's 502/503/504 page
/// (``HTTPResponse/gatewayUnavailable``) and a connection refused or reset before any answer. A 4xx, a JSON 5xx (the
/// implementation's own answer) and a timeout are never retried, so a protocol failure cannot turn green by trying
/// again.
public struct RetryPolicy: Sendable, Hashable {
    /// The most retries `--retry` takes.
    public static let maxRetries = 10
    /// The retries after the first try, `0...maxRetries`.
    public var retries: Int
    /// The wait before the first retry; each next one waits twice as long, up to ``maxDelay``.
    public var firstDelay: Duration
    /// The longest wait between two tries: at most ``maxRetries`` × 2 s of waiting per exchange.
    public var maxDelay: Duration

    public init(retries: Int, firstDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(2)) {
        self.retries = min(max(0, retries), Self.maxRetries)
        self.firstDelay = firstDelay
        self.maxDelay = maxDelay
    }

    /// The wait before retry `n` (1-based): ``firstDelay`` doubled `n - 1` times, at most ``maxDelay``.
    public func delay(before n: Int) -> Duration {
        var delay = firstDelay
        for _ in 1..<max(1, n) where delay < maxDelay { delay *= 2 }
        return min(delay, maxDelay)
    }

    /// Why `response` is worth another try, or `nil` when it is the implementation's answer.
    public func cause(of response: HTTPResponse) -> String? {
        response.gatewayUnavailable == nil ? nil : "\(response.status.code) \(response.status.reasonPhrase) (gateway)"
    }

    /// Why `error` is worth another try: a connection refused or reset before any answer; `nil` for any other.
    public func cause(of error: any Error) -> String? {
        guard let error = error as? TransportError else { return nil }
        return error.kind == .connectionReset || error.kind == .connectionRefused ? error.kind.rawValue : nil
    }
}

/// The retries of the exchanges sent while it is ``current`` (one step of a run, one replayed exchange), as
/// ``RetryTransport`` counts them, each with its cause.
public final class RetryTally: Sendable {
    private let causes = Mutex<[String]>([])

    public init() {}

    /// The tally the exchanges of the current task count their retries in, when the sender set one.
    @TaskLocal public static var current: RetryTally?

    /// How many retries were made.
    public var count: Int { causes.withLock { $0.count } }

    /// Why each retry was made, in order (`503 Service Unavailable (gateway)`, `connection reset`).
    public var reasons: [String] { causes.withLock { $0 } }

    func note(_ cause: String) { causes.withLock { $0.append(cause) } }

    /// Runs `body` with a fresh tally as ``current`` and returns what it returned with the retries it counted.
    public static func counting<T: Sendable>(_ body: () async throws -> T) async rethrows -> (T, RetryTally) {
        let tally = RetryTally()
        let value = try await $current.withValue(tally) { try await body() }
        return (value, tally)
    }
}

/// Sends again what a gateway or the network lost (``RetryPolicy``), up to ``RetryPolicy/retries`` times with a
/// doubling wait, and counts each retry in ``RetryTally/current``; the last answer or error is the caller's.
///
/// `run`, `replay` and `diff` put it right around the wire transport (`--retry N`), so everything above it (a
/// bundle's exchange log, the credentials of a replay) sees one exchange.
public struct RetryTransport: TransportDecorator {
    public let inner: any Transport
    public let policy: RetryPolicy

    public init(inner: any Transport, policy: RetryPolicy) {
        self.inner = inner
        self.policy = policy
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var retry = 0
        while true {
            let cause: String
            do {
                let response = try await inner.send(request)
                guard retry < policy.retries, let why = policy.cause(of: response) else { return response }
                cause = why
            } catch {
                guard retry < policy.retries, let why = policy.cause(of: error) else { throw error }
                cause = why
            }
            retry += 1
            RetryTally.current?.note(cause)
            try await Task.sleep(for: policy.delay(before: retry))
        }
    }
}
