import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why a connection could not be opened.
struct ConnectFailure: Error {
    let reason: String
}

/// One TCP connection of a ``PlainHTTPClient`` and the exchange it carries, if any.
final class PlainHTTPConnection {
    let fd: Int32
    let address: PlainHTTPTarget.SocketAddress
    /// `connect` has not completed yet.
    var connecting: Bool
    var watchesWrite = false
    /// The batch of ready descriptors being handled when the connection opened: that batch's events are not its.
    var openedIn = -1
    private(set) var exchange: PlainHTTPExchange?
    /// How much of the exchange's request is written.
    var written = 0
    var reader: PlainHTTPResponseReader?

    private init(fd: Int32, address: PlainHTTPTarget.SocketAddress, connecting: Bool) {
        self.fd = fd
        self.address = address
        self.connecting = connecting
    }

    func begin(_ exchange: PlainHTTPExchange) {
        self.exchange = exchange
        written = 0
        reader = PlainHTTPResponseReader(sink: exchange.sink, answersHead: exchange.answersHead)
    }

    func end() {
        exchange = nil
        reader = nil
    }

    /// A non-blocking socket connecting to `address`, or why it could not start.
    static func open(_ address: PlainHTTPTarget.SocketAddress) -> Result<PlainHTTPConnection, ConnectFailure> {
        let fd = socket(
            address.family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(ConnectFailure(reason: "socket: \(errnoText())")) }
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        /// `connect` to a socket address of type `T`.
        func connecting<T>(_ socketAddress: T) -> Int32 {
            withUnsafeBytes(of: socketAddress) {
                connect(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<T>.size))
            }
        }
        let result: Int32
        if address.family == AF_INET {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = address.port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin_addr) { $0.copyBytes(from: address.bytes) }
            result = connecting(socketAddress)
        } else {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = address.port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin6_addr) { $0.copyBytes(from: address.bytes) }
            result = connecting(socketAddress)
        }
        if result == 0 { return .success(PlainHTTPConnection(fd: fd, address: address, connecting: false)) }
        guard errno == EINPROGRESS else {
            let reason = connectFailure(address, errnoText())
            Glibc.close(fd)
            return .failure(ConnectFailure(reason: reason))
        }
        return .success(PlainHTTPConnection(fd: fd, address: address, connecting: true))
    }

    /// Why a connect that went on in the background failed, or `nil` when it succeeded.
    func connectError() -> String? {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else {
            return Self.connectFailure(address, errnoText())
        }
        return error == 0 ? nil : Self.connectFailure(address, String(cString: strerror(error)))
    }

    private static func connectFailure(_ address: PlainHTTPTarget.SocketAddress, _ reason: String) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = address.bytes.withUnsafeBytes { inet_ntop(address.family, $0.baseAddress, &text, socklen_t(text.count)) }
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "Failed to connect to \(host) port \(address.port): \(reason)"
    }
}
