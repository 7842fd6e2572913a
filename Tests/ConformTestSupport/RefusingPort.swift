import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A port on 127.0.0.1 where connections are refused, held for as long as this value lives: a socket bound to it that
/// does not listen.
///
/// A port bound and then closed is not that: the system may give it to the next program (or test) that asks for a
/// free port, and a request meant to be refused then reaches someone else's server.
public final class RefusingPort: Sendable {
    public let port: UInt16
    private let socket: Int32

    public init() throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, size) == 0 && getsockname(descriptor, $0, &size) == 0
            }
        }
        guard bound else {
            let failure = errno
            close(descriptor)
            throw POSIXError(.init(rawValue: failure) ?? .EIO)
        }
        socket = descriptor
        port = address.sin_port.bigEndian
    }

    deinit { close(socket) }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
}
