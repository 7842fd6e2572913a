internal import CCurl
import ConformCore
import Foundation
import Synchronization

/// Sends requests over HTTP/1.1, and HTTP/2 or HTTP/1.1 by ALPN over HTTPS, with libcurl, reusing connections and
/// reporting raw headers, timings and the HTTP version spoken.
///
/// One thread drives every exchange through a libcurl multi handle (or, with `loops`, each of several threads its
/// own); idle connections stay open, so sequential exchanges reuse one connection. Tasks that prefer
/// ``preferredTaskExecutor`` run on that same thread and send without a thread switch; a server can join the loops
/// (``ioLoops``) and serve its requests on them. Redirects are not followed, no headers are added beyond `Host` and
/// `Content-Length`, and the method and body are sent exactly as given. Plain `http://` exchanges to a numeric address
/// go without libcurl on the same threads (``carriesPlainHTTP``, ``PlainHTTPClient``), sending and reading what
/// libcurl would.
public final class CurlTransport: Transport {
    /// How long an exchange may take when the request sets no timeout.
    public let defaultTimeout: Duration
    /// Whether TLS certificates and host names go unchecked.
    public var insecure: Bool { tls.insecure }
    /// What TLS trusts and presents, and whether HTTP/2 is offered.
    public let tls: ClientTLS
    private let loops: [CurlLoop]
    /// The loops as one executor, when there are several.
    private let group: CurlLoopGroup?

    /// How many exchanges wait for their turn behind `maxConcurrentExchanges` in flight (for diagnostics, and for
    /// tests to wait on an exchange being queued rather than on time).
    public var waitingExchanges: Int {
        loops.reduce(0) { $0 + $1.waiting } + plainClients.values.reduce(0) { $0 + $1.waiting }
    }

    /// The largest response body kept; a larger one fails the exchange with ``TransportError/Kind/tooLarge``.
    public let maxBodyBytes: Int
    /// An HTTP proxy (`http://host:port`) every exchange goes through (`CONNECT` for HTTPS), or `nil` for none; the
    /// environment's proxy variables are never read.
    public let proxy: String?
    /// Each loop's client for plain `http://` exchanges to numeric addresses (``PlainHTTPClient``), keyed by the
    /// loop; empty when libcurl carries every exchange.
    private let plainClients: [ObjectIdentifier: PlainHTTPClient]

    /// Whether plain `http://` exchanges to a numeric address (`127.0.0.1`, `[::1]`) go without libcurl when no proxy
    /// is set: written and read on the same thread by ``PlainHTTPClient``, with what libcurl would send and the same
    /// fields, limits and failures read back.
    public var carriesPlainHTTP: Bool { !plainClients.isEmpty }

    /// Creates a transport; `maxConcurrentExchanges` bounds the exchanges in flight, further ones wait their turn;
    /// `tls` (whose `insecure` is or-ed with `insecure`) says what TLS trusts and presents. With `loops` above 1
    /// (at most 16), that many threads each drive their own share of the exchanges, each bounded to
    /// `maxConcurrentExchanges` divided among them. With `plainHTTP`, plain `http://` exchanges to numeric addresses
    /// go without libcurl (``carriesPlainHTTP``).
    public init(
        timeout: Duration = .seconds(30), insecure: Bool = false,
        maxConcurrentExchanges: Int = 64, maxBodyBytes: Int = ResponseLimits.defaultMaxBodyBytes,
        tls: ClientTLS = ClientTLS(), proxy: String? = nil, loops: Int = 1, plainHTTP: Bool = true
    ) {
        self.proxy = proxy
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.defaultTimeout = timeout
        var tls = tls
        tls.insecure = tls.insecure || insecure
        self.tls = tls
        let count = min(16, max(1, loops))
        let share = max(1, maxConcurrentExchanges / count)
        if count == 1 {
            self.group = nil
            self.loops = [CurlLoop(maxTransfers: max(1, maxConcurrentExchanges))]
        } else {
            let group = CurlLoopGroup()
            let members = (0..<count).map { _ in CurlLoop(maxTransfers: share, owner: group) }
            group.join(members)
            self.group = group
            self.loops = members
        }
        let perLoop = count == 1 ? max(1, maxConcurrentExchanges) : share
        plainClients =
            plainHTTP && proxy == nil
            ? Dictionary(
                uniqueKeysWithValues: self.loops.map {
                    (ObjectIdentifier($0), PlainHTTPClient(loop: $0, maxExchanges: perLoop))
                })
            : [:]
    }

    deinit {
        for client in plainClients.values { client.close() }
        for loop in loops { loop.shutdown() }
    }

    /// Every exchange ends by `request.timeout` (or the transport's default) on its own.
    public var enforcesTimeout: Bool { true }

    /// The thread that drives libcurl: a task that prefers it sends and reads answers without a thread switch.
    public var preferredTaskExecutor: (any TaskExecutor)? { group ?? loops[0] }

    /// The threads that drive libcurl, which a server can join.
    public var ioLoops: [any IOLoop] { loops }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let cancelled = CancelFlag()
        let loop = group?.chosen ?? loops[0]
        if let client = plainClients[ObjectIdentifier(loop)], let target = PlainHTTPTarget(request.url),
            PlainHTTPExchange.isPlain(request)
        {
            return try await sendPlain(request, target: target, on: client, cancelled: cancelled)
        }
        let settings = CurlExchange.Settings(
            url: request.url, timeoutMilliseconds: Self.milliseconds(request.timeout ?? defaultTimeout),
            insecure: insecure, maxBodyBytes: maxBodyBytes, tls: tls, proxy: proxy)
        let handle = loop.handles.take()
        let transfer: CurlTransfer
        switch CurlExchange.prepare(request, settings: settings, on: handle, cancelled: cancelled) {
        case .success(let prepared): transfer = prepared
        case .failure(let error):
            loop.handles.put(handle)
            throw error
        }
        let result = try await Self.outcome(cancelled: cancelled, onCancel: loop.noteCancellation) {
            transfer.continuation = $0
            loop.start(transfer)
        }
        if case .failure(let error) = result, error.kind == .tls, !tls.insecure {
            // Said once per run with its fix: expired, not trusted (by which CA file), or for other names.
            let (url, tls, proxy) = (request.url, self.tls, self.proxy)
            throw await Task.detached { TLSDiagnosis.explain(error, url: url, tls: tls, proxy: proxy) }.value
        }
        return try result.get()
    }

    /// Sends `request` with the loop's ``PlainHTTPClient``.
    private func sendPlain(
        _ request: HTTPRequest, target: PlainHTTPTarget, on client: PlainHTTPClient, cancelled: CancelFlag
    ) async throws -> HTTPResponse {
        if let refusal = CurlExchange.refusal(request, url: request.url) { throw refusal }
        let timeout = Duration.milliseconds(Self.milliseconds(request.timeout ?? defaultTimeout))
        let exchange = PlainHTTPExchange(
            request, target: target, timeout: timeout, maxBodyBytes: maxBodyBytes, cancelled: cancelled)
        return try await Self.outcome(cancelled: cancelled, onCancel: client.noteCancellation) {
            exchange.continuation = $0
            client.start(exchange)
        }.get()
    }

    /// What the loop answers to an exchange that `start` hands it with the continuation to resume; a cancelled task
    /// sets `cancelled`, tells the loop (`onCancel`) and throws `CancellationError` once the loop let go of it.
    private static func outcome(
        cancelled: CancelFlag, onCancel: @escaping @Sendable () -> Void,
        start: (CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) -> Void
    ) async throws -> Result<HTTPResponse, TransportError> {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { start($0) }
        } onCancel: {
            cancelled.set()
            onCancel()
        }
        if cancelled.isSet { throw CancellationError() }
        return result
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(max(1, min(duration.wholeMilliseconds, Int64(Int32.max))))
    }
}

/// Set from another thread when the waiting task is cancelled; read by curl's progress callback.
final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}

/// One-time libcurl initialisation, done before any handle exists.
enum CurlGlobal {
    private static let once: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    static func initialize() { _ = once }
}
