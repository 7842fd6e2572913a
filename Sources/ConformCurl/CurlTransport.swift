internal import CCurl
import ConformCore
import Foundation
import Synchronization

/// Sends requests over HTTP/1.1 and HTTPS with libcurl, reusing connections and reporting raw headers and timings.
///
/// Each exchange in flight runs on its own worker thread with its own easy handle; idle handles keep their
/// connections open, so sequential exchanges reuse one connection. Redirects are not followed, no headers are
/// added beyond `Host` and `Content-Length`, and the method and body are sent exactly as given.
public final class CurlTransport: Transport {
    /// How long an exchange may take when the request sets no timeout.
    public let defaultTimeout: Duration
    /// Whether TLS certificates and host names go unchecked.
    public let insecure: Bool
    /// Prefixed to origin-form request URLs (`/path?query`), for example `http://127.0.0.1:8080`.
    public let baseURL: String?
    private let handles: EasyHandlePool
    private let workers: CurlWorkerPool

    /// The largest response body kept; a larger one fails the exchange with ``TransportError/Kind/tooLarge``.
    public let maxBodyBytes: Int

    /// Creates a transport; `maxConcurrentExchanges` bounds worker threads, further exchanges wait their turn.
    public init(
        timeout: Duration = .seconds(30), insecure: Bool = false, baseURL: String? = nil,
        maxConcurrentExchanges: Int = 64, maxBodyBytes: Int = ResponseLimits.defaultMaxBodyBytes
    ) {
        self.maxBodyBytes = max(0, maxBodyBytes)
        CurlGlobal.initialize()
        self.defaultTimeout = timeout
        self.insecure = insecure
        self.baseURL = baseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.handles = EasyHandlePool()
        self.workers = CurlWorkerPool(maxThreads: max(1, maxConcurrentExchanges))
    }

    deinit {
        workers.shutdown()
        handles.drain()
    }

    /// Every exchange ends by `request.timeout` (or the transport's default) on its own.
    public var enforcesTimeout: Bool { true }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let url = resolvedURL(request.url)
        let settings = CurlExchange.Settings(
            url: url, timeoutMilliseconds: Self.milliseconds(request.timeout ?? defaultTimeout), insecure: insecure,
            maxBodyBytes: maxBodyBytes)
        let cancelled = CancelFlag()
        let handles = self.handles
        let result: Result<HTTPResponse, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                workers.submit {
                    let handle = handles.take()
                    let outcome = CurlExchange.perform(request, settings: settings, on: handle, cancelled: cancelled)
                    handles.put(handle)
                    continuation.resume(returning: outcome)
                }
            }
        } onCancel: {
            cancelled.set()
        }
        if cancelled.isSet { throw CancellationError() }
        return try result.get()
    }

    private func resolvedURL(_ url: String) -> String {
        if url.hasPrefix("/"), let baseURL { return baseURL + url }
        return url
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int(max(1, min(total, Int64(Int32.max))))
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
