internal import CCurl
import Synchronization

/// A libcurl easy handle; used by one exchange at a time.
struct EasyHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
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
