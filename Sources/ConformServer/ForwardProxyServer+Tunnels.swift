import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A `CONNECT` being resolved, connected or passed through on a thread of its own.
final class TunnelEntry: Sendable {
    let socket: Int32
    let address: [UInt8]
    private let last = Atomic<Int64>(0)
    private let wasCut = Atomic<Bool>(false)
    private static let epoch = ContinuousClock.now

    init(socket: Int32, address: [UInt8]) {
        self.socket = socket
        self.address = address
        touch()
    }

    /// Bytes moved now.
    @Sendable func touch() {
        let (seconds, attoseconds) = Self.epoch.duration(to: .now).components
        last.store(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .relaxed)
    }

    var lastActivity: Int64 { last.load(ordering: .relaxed) }
    var isCut: Bool { wasCut.load(ordering: .relaxed) }

    /// Shuts the client's socket down: the tunnel's thread sees it closed and ends. Only while the entry is in
    /// ``Tunnels`` (under its lock), when the socket is still the tunnel's.
    func cut() {
        if !wasCut.exchange(true, ordering: .relaxed) { _ = Glibc.shutdown(socket, shutdownBoth) }
    }
}

/// The tunnels running now, and how many each client address holds.
struct Tunnels {
    var entries: [ObjectIdentifier: TunnelEntry] = [:]
    private var perAddress: [[UInt8]: Int] = [:]

    func count(of address: [UInt8]) -> Int { perAddress[address, default: 0] }

    mutating func insert(_ entry: TunnelEntry) {
        entries[ObjectIdentifier(entry)] = entry
        perAddress[entry.address, default: 0] += 1
    }

    mutating func remove(_ entry: TunnelEntry) {
        guard entries.removeValue(forKey: ObjectIdentifier(entry)) != nil else { return }
        let left = perAddress[entry.address, default: 1] - 1
        perAddress[entry.address] = left > 0 ? left : nil
    }

    /// The tunnel idle longest that is not cut yet.
    func idlest() -> TunnelEntry? {
        entries.values.filter { !$0.isCut }.min { $0.lastActivity < $1.lastActivity }
    }
}

/// `SHUT_RDWR` of `<sys/socket.h>`, which Glibc's module does not export to this file in every build.
let shutdownBoth: Int32 = 2
