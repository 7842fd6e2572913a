import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A deliberately misbehaving TCP server: each accepted connection is handed to `behavior` on its own thread.
final class RawServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let captured = CapturedRequests()
    private let stopped = Atomic<Bool>(false)

    init(_ behavior: @escaping @Sendable (RawConnection) -> Void) throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = listener
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [captured] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    // Only this thread closes the listener, so its descriptor number cannot be reused under it.
                    Glibc.close(fd)
                    return
                }
                let connection = RawConnection(fd: client, captured: captured)
                let worker = Thread {
                    behavior(connection)
                    connection.close()
                }
                worker.start()
            }
        }
        thread.start()
    }

    deinit { stop() }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Bytes each connection received before its behavior finished.
    var requests: [[UInt8]] { captured.all }

    func stop() {
        if stopped.exchange(true, ordering: .relaxed) { return }
        shutdown(listener, Int32(SHUT_RDWR))
    }
}

/// One accepted connection.
final class RawConnection: Sendable {
    let fd: Int32
    private let captured: CapturedRequests
    private let received = Mutex<[UInt8]>([])
    private let closed = Atomic<Bool>(false)

    fileprivate init(fd: Int32, captured: CapturedRequests) {
        self.fd = fd
        self.captured = captured
    }

    /// Reads until a blank line (and a declared Content-Length body) has arrived, or the peer stops.
    @discardableResult
    func readRequest() -> String {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            let text = received.withLock { String(decoding: $0, as: UTF8.self) }
            if let end = text.range(of: "\r\n\r\n") {
                let head = text[..<end.lowerBound].lowercased()
                let declared =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if text.utf8.count - text.utf8.distance(from: text.utf8.startIndex, to: end.upperBound) >= declared {
                    return text
                }
            }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return text }
            received.withLock { $0.append(contentsOf: buffer[0..<count]) }
        }
    }

    func write(_ text: String) { write(Array(text.utf8)) }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// Waits until the client closes its side (or ten seconds pass).
    func waitForClose() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while recv(fd, &buffer, buffer.count, 0) > 0 {}
    }

    func close() {
        if closed.exchange(true, ordering: .relaxed) { return }
        let bytes = received.withLock { $0 }
        captured.append(bytes)
        // Close gracefully: unread input would otherwise turn the close into a reset.
        shutdown(fd, Int32(SHUT_WR))
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while recv(fd, &buffer, buffer.count, 0) > 0 {}
        Glibc.close(fd)
    }
}

/// Requests every connection received, in completion order.
final class CapturedRequests: Sendable {
    private let storage = Mutex<[[UInt8]]>([])
    func append(_ bytes: [UInt8]) { storage.withLock { $0.append(bytes) } }
    var all: [[UInt8]] { storage.withLock { $0 } }
}
