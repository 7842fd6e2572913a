internal import CCurl
import Synchronization

/// A libcurl easy handle, used by one exchange at a time, and what stays on it from one exchange to the next: the
/// error buffer libcurl writes into, the memory it reads a request from, and the settings its options were last set
/// for (``CurlExchange/prepare``).
final class EasyHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// The settings the handle's lasting options were set for; `nil` before its first exchange.
    var configured: CurlExchange.Settings.Lasting?
    /// Where each exchange's header lines and body copy are written for libcurl to read.
    let request = CurlRequestMemory()

    init(raw: UnsafeMutableRawPointer) {
        self.raw = raw
        let size = Int(CURL_ERROR_SIZE) + 1
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
    }

    deinit { errorBuffer.deallocate() }
}

/// Idle easy handles, most recently used first, so a sequential client keeps reusing the same open connection.
final class EasyHandlePool: Sendable {
    private let idle = Mutex<[EasyHandle]>([])

    func take() -> EasyHandle {
        if let handle = idle.withLock({ $0.popLast() }) { return handle }
        guard let raw = curl_easy_init() else { fatalError("curl_easy_init failed: libcurl is out of memory") }
        return EasyHandle(raw: raw)
    }

    func put(_ handle: EasyHandle) {
        idle.withLock { $0.append(handle) }
    }

    /// Closes every idle handle and its connections.
    func drain() {
        let all = idle.withLock { handles in
            let all = handles
            handles = []
            return all
        }
        for handle in all { curl_easy_cleanup(handle.raw) }
    }
}
