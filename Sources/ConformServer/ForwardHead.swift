import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The start of a connection to the forward proxy, read without consuming it: its request line, and for `CONNECT`
/// the length of the whole head (which the proxy consumes, since no server reads it after).
struct ForwardHead {
    var method: String
    var target: String
    /// The bytes of the head up to and including its empty line (`CONNECT` only; 0 otherwise).
    var length: Int

    var isConnect: Bool { method == "CONNECT" }

    /// The `HOST:PORT` of a `CONNECT`; `nil` when the target is no authority with a port.
    var connectAuthority: ForwardAuthority? {
        guard let authority = ForwardAuthority(target), authority.port != nil else { return nil }
        return authority
    }

    /// Peeks until the request line (and for `CONNECT` the empty line) has arrived; `nil` when the client sends
    /// something else, more than `maxBytes`, or not all of it by `deadline`.
    static func peek(_ socket: Int32, maxBytes: Int, until deadline: ContinuousClock.Instant) -> ForwardHead? {
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        var seen = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return nil }
            if count > 0 {
                let bytes = buffer[..<count]
                if let head = parse(bytes) { return head }
                // A request line that is no HTTP request, or a head longer than the limit: nothing to serve.
                if let lineEnd = bytes.firstIndex(of: 0x0A), lineEnd < count, requestLine(bytes[..<lineEnd]) == nil {
                    return nil
                }
                if count >= maxBytes { return nil }
            }
            if count > seen {
                seen = count
                guard SocketIO.wait(socket, events: Int16(POLLIN), until: deadline) else { return nil }
            } else {
                // Peeked bytes keep the socket readable: wait a little for more instead of spinning on poll.
                guard ContinuousClock.now < deadline else { return nil }
                if count < 0 {
                    guard SocketIO.wait(socket, events: Int16(POLLIN), until: deadline) else { return nil }
                } else {
                    usleep(5000)
                }
            }
        }
    }

    /// The head in `bytes` when enough of it is there.
    static func parse(_ bytes: ArraySlice<UInt8>) -> ForwardHead? {
        guard let lineEnd = bytes.firstIndex(of: 0x0A), let (method, target) = requestLine(bytes[..<lineEnd]) else {
            return nil
        }
        guard method == "CONNECT" else { return ForwardHead(method: method, target: target, length: 0) }
        var index = lineEnd + 1
        // The head ends at an empty line (CRLF, or a bare LF).
        while let next = bytes[index...].firstIndex(of: 0x0A) {
            let line = bytes[index..<next]
            if line.isEmpty || line == [0x0D] { return ForwardHead(method: method, target: target, length: next + 1) }
            index = next + 1
        }
        return nil
    }

    /// `METHOD SP TARGET SP HTTP/1.x`, the method a token and the target without spaces or controls.
    static func requestLine(_ line: ArraySlice<UInt8>) -> (String, String)? {
        let trimmed = line.last == 0x0D ? line.dropLast() : line
        let parts = trimmed.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
            parts[0].allSatisfy(RequestHeadRules.isTokenByte),
            parts[1].allSatisfy({ $0 > 0x20 && $0 != 0x7F }),
            parts[2].elementsEqual("HTTP/1.1".utf8) || parts[2].elementsEqual("HTTP/1.0".utf8)
        else { return nil }
        return (String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self))
    }

    /// Reads and drops `count` bytes already peeked.
    static func consume(_ socket: Int32, count: Int) {
        var left = count
        var buffer = [UInt8](repeating: 0, count: min(count, 64 * 1024))
        while left > 0 {
            let read = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, min(left, $0.count), 0) }
            if read <= 0 { return }
            left -= read
        }
    }

    /// A non-blocking socket connected to `host:port` within `timeout`, or `nil`. The name is resolved by the
    /// system's resolver (`getaddrinfo`), which the timeout does not bound.
    static func connect(host: String, port: UInt16, timeout: Duration) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0 else { return nil }
        defer { freeaddrinfo(list) }
        let deadline = ContinuousClock.now + timeout
        var cursor = list
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            let socket = Glibc.socket(
                entry.pointee.ai_family, entry.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                entry.pointee.ai_protocol)
            guard socket >= 0 else { continue }
            SocketIO.setNonBlocking(socket)
            let result = Glibc.connect(socket, entry.pointee.ai_addr, entry.pointee.ai_addrlen)
            if result == 0 { return socket }
            if errno == EINPROGRESS, SocketIO.wait(socket, events: Int16(POLLOUT), until: deadline) {
                var failure: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &length) == 0, failure == 0 { return socket }
            }
            close(socket)
        }
        return nil
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 502: "Bad Gateway"
        default: "Error"
        }
    }
}
