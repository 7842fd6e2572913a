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

    /// What the peeked bytes of a connection say.
    enum Peeked {
        case head(ForwardHead)
        /// Not all of the head yet.
        case partial
        /// A request line that is no HTTP request line, or a head longer than the limit: nothing to serve.
        case invalid
    }

    /// Judges `bytes`, the start of a connection (at most `maxBytes` of it).
    static func judge(_ bytes: ArraySlice<UInt8>, maxBytes: Int) -> Peeked {
        if let head = parse(bytes) { return .head(head) }
        if let lineEnd = bytes.firstIndex(of: 0x0A), requestLine(bytes[..<lineEnd]) == nil { return .invalid }
        return bytes.count >= maxBytes ? .invalid : .partial
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

    /// A non-blocking socket connected to the first of `addresses` that answers within `timeout` in all, or `nil`.
    static func connect(to addresses: [ForwardAddress], timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        for address in addresses {
            let family = address.bytes.count == 4 ? AF_INET : AF_INET6
            let socket = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socket >= 0 else { continue }
            SocketIO.setNonBlocking(socket)
            let result = address.withSockaddr { Glibc.connect(socket, $0, $1) }
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
        case 503: "Service Unavailable"
        default: "Error"
        }
    }
}
