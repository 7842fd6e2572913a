import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A port held while its server is offline: a socket bound to the server's address that does not listen.
///
/// Connections to the port are refused, as with no socket at all, but no other program that asks the system for a
/// free port is handed this one, so the server can listen on it again when its offline window ends. The socket is
/// closed when the reservation goes, unless ``listen()`` handed it on.
final class PortReservation: Sendable {
    private let socket: Mutex<Int32?>

    /// Binds a socket to `address`:`port`; `nil` when the port is taken or no socket can be made.
    init?(address: ListenAddress, port: UInt16) {
        let family: Int32
        switch address {
        case .v4: family = AF_INET
        case .v6: family = AF_INET6
        }
        let descriptor = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var one: Int32 = 1
        // As the listener had: the port's connections left in TIME_WAIT must not keep it from being bound again.
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 {
            _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = address.withSockaddr(port: port) { Glibc.bind(descriptor, $0, $1) }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
        socket = Mutex(descriptor)
    }

    deinit {
        if let descriptor = socket.withLock({ $0 }) { close(descriptor) }
    }

    /// The socket, listening and non-blocking, for a server to own from now on; `nil` (and the socket closed) when
    /// it cannot listen, or when it was handed on already.
    func listen() -> Int32? {
        guard
            let descriptor = socket.withLock({ held -> Int32? in
                defer { held = nil }
                return held
            })
        else { return nil }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0, Glibc.listen(descriptor, SOMAXCONN) == 0
        else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}
