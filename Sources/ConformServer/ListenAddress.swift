import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A numeric listen address.
enum ListenAddress: Sendable {
    case v4(in_addr)
    case v6(in6_addr)

    init?(host: String) {
        let name = host == "localhost" ? "127.0.0.1" : host
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            self = .v4(v4)
            return
        }
        var v6 = in6_addr()
        let bare = name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            self = .v6(v6)
            return
        }
        return nil
    }

    /// The address in network order: 4 bytes for IPv4, 16 for IPv6; `nil` for any other count.
    init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4:
            var v4 = in_addr()
            withUnsafeMutableBytes(of: &v4) { $0.copyBytes(from: bytes) }
            self = .v4(v4)
        case 16:
            var v6 = in6_addr()
            withUnsafeMutableBytes(of: &v6) { $0.copyBytes(from: bytes) }
            self = .v6(v6)
        default: return nil
        }
    }

    /// Calls `body` with the address and `port` as a socket address and its length.
    func withSockaddr<R>(port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        func rebound<Storage>(_ storage: inout Storage) -> R {
            withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<Storage>.size)) }
            }
        }
        switch self {
        case .v4(let address):
            var storage = sockaddr_in()
            storage.sin_family = sa_family_t(AF_INET)
            storage.sin_port = port.bigEndian
            storage.sin_addr = address
            return rebound(&storage)
        case .v6(let address):
            var storage = sockaddr_in6()
            storage.sin6_family = sa_family_t(AF_INET6)
            storage.sin6_port = port.bigEndian
            storage.sin6_addr = address
            return rebound(&storage)
        }
    }
}
