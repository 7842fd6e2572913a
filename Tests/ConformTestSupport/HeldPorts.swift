import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The TCP ports this process holds for a server: its sockets that listen, or that are bound and not connected.
///
/// Read from the process's own descriptors, never by connecting: once a test's server lets a port go, any other
/// program may be given it, so a connection to it says nothing about the server. Whether a server let its port go is
/// asked of the sockets it held (``sockets(on:)``, ``anyOpen(_:)``), not of the port: another test in this process
/// may bind the port the moment it is free.
public enum HeldPorts {
    public struct Held: Hashable, Sendable {
        public let port: UInt16
        public let listening: Bool
        /// The socket's inode: it names this socket and no later one.
        public let inode: UInt64
    }

    /// Every such socket of this process now.
    public static func now() -> Set<Held> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var held: Set<Held> = []
        for descriptor in entries.compactMap(Int32.init) {
            var info = stat()
            guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { continue }
            var type: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) == 0,
                type == Int32(SOCK_STREAM.rawValue)
            else { continue }
            var storage = sockaddr_storage()
            var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &size) }
            }
            guard named == 0 else { continue }
            let port: UInt16
            switch Int32(storage.ss_family) {
            case AF_INET:
                port = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self).sin_port.bigEndian }
            case AF_INET6:
                port = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self).sin6_port.bigEndian }
            default: continue
            }
            var accepting: Int32 = 0
            length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length)
            if accepting == 0 {
                // A connection (a client's or an accepted one) is not a held port.
                var peer = sockaddr_storage()
                var peerSize = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let connected = withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &peerSize) }
                }
                if connected == 0 || port == 0 { continue }
            }
            held.insert(Held(port: port, listening: accepting != 0, inode: UInt64(info.st_ino)))
        }
        return held
    }

    /// The sockets of this process that hold `port` now.
    public static func sockets(on port: UInt16) -> Set<UInt64> {
        Set(now().filter { $0.port == port }.map(\.inode))
    }

    /// Whether any of `sockets` (inodes from ``sockets(on:)``) is still open in this process.
    public static func anyOpen(_ sockets: Set<UInt64>) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap(Int32.init).contains { descriptor in
            var info = stat()
            return fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
                && sockets.contains(UInt64(info.st_ino))
        }
    }

    /// Whether this process holds `port`, and if so whether it listens there.
    public static func state(of port: UInt16) -> (held: Bool, listening: Bool) {
        let matching = now().filter { $0.port == port }
        return (!matching.isEmpty, matching.contains { $0.listening })
    }
}
