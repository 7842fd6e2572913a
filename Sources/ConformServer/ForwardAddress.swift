import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One address a `CONNECT` host resolved to, with its port: the address the proxy judges is the address it connects
/// to, so no second resolution can lead elsewhere (no DNS-rebinding window).
struct ForwardAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    let bytes: [UInt8]
    let port: UInt16

    init(bytes: [UInt8], port: UInt16) {
        self.bytes = bytes
        self.port = port
    }

    /// The address of an IPv4 or IPv6 socket address; `nil` for another family.
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
            self.init(bytes: withUnsafeBytes(of: v4.sin_addr) { Array($0) }, port: UInt16(bigEndian: v4.sin_port))
        case AF_INET6:
            let v6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self)
            self.init(bytes: withUnsafeBytes(of: v6.sin6_addr) { Array($0) }, port: UInt16(bigEndian: v6.sin6_port))
        default: return nil
        }
    }

    /// The IPv4 address an IPv4-mapped (`::ffff:a.b.c.d`) or IPv4-compatible (`::a.b.c.d`) IPv6 address carries
    /// (the kernel reaches the IPv4 address through either), else the address itself.
    var unmapped: [UInt8] {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }) else { return bytes }
        if bytes[10] == 0xFF && bytes[11] == 0xFF || bytes[10] == 0 && bytes[11] == 0 { return Array(bytes[12...]) }
        return bytes
    }

    /// What makes the address one of this machine's whatever the network ("a loopback address"): loopback
    /// (`127.0.0.0/8`, `::1`), unspecified or "this network" (`0.0.0.0/8`, `::`), link-local (`169.254.0.0/16`,
    /// `fe80::/10`); `nil` for another. IPv4-mapped and -compatible forms are judged by their IPv4 address.
    var special: String? {
        if bytes.count == 16, bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] <= 1 {
            return bytes[15] == 1 ? "a loopback address" : "an unspecified address"
        }
        let address = unmapped
        if address.count == 4 {
            switch address[0] {
            case 127: return "a loopback address"
            case 0: return "an unspecified address"
            case 169 where address[1] == 254: return "a link-local address"
            default: return nil
            }
        }
        if address[0] == 0xFE && address[1] & 0xC0 == 0x80 { return "a link-local address" }
        return nil
    }

    /// The address as `inet_ntop` writes it (IPv6 without brackets).
    var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
    }

    var description: String { bytes.count == 4 ? "\(text):\(port)" : "[\(text)]:\(port)" }

    /// Calls `body` with the address as a socket address.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        // `bytes` holds 4 or 16 bytes by construction (read from a resolved socket address).
        ListenAddress(bytes: bytes)!.withSockaddr(port: port, body)
    }

    /// The addresses of this machine's interfaces (unmapped), whatever their scope: a tunnel to any of them would
    /// reach the machine's own services, the proxy's included.
    static func ofThisMachine() -> Set<[UInt8]> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var found: Set<[UInt8]> = []
        var cursor = list
        while let entry = cursor {
            cursor = entry.pointee.ifa_next
            if let address = entry.pointee.ifa_addr, let parsed = ForwardAddress(UnsafePointer(address)) {
                found.insert(parsed.unmapped)
            }
        }
        return found
    }
}

/// Name resolution for the forward proxy, bounded in time and in how many run at once.
///
/// The system's resolver (`getaddrinfo`) takes no timeout: each lookup runs on a thread of its own, the caller waits
/// at most its timeout, and a lookup still running then finishes on its own thread, counted until it does, so a
/// resolver that hangs costs at most ``maxInFlight`` threads.
enum ForwardResolver {
    /// Lookups that may run at once; more are refused until one ends.
    static let maxInFlight = 32
    private static let inFlight = Atomic<Int>(0)

    enum Failure: Error, Equatable {
        /// ``maxInFlight`` lookups are running.
        case busy
        /// No answer within the timeout.
        case timedOut
        /// The resolver's own error (`gai_strerror`), or no IPv4 or IPv6 address.
        case failed(String)
    }

    /// The addresses of an IP literal in any form `inet_aton` or `inet_pton` reads (`127.0.0.1`, `127.1`,
    /// `2130706433`, `0x7f.1`, `0`, `::1`); `nil` for a name. Never asks a name server.
    static func numeric(_ host: String, port: UInt16) -> [ForwardAddress]? {
        guard case .success(let found) = lookup(host, port: port, flags: AI_NUMERICHOST) else { return nil }
        return found
    }

    /// The addresses `host` resolves to, within `timeout`.
    static func resolve(_ host: String, port: UInt16, timeout: Duration) -> Result<[ForwardAddress], Failure> {
        if let found = numeric(host, port: port) { return .success(found) }
        guard inFlight.add(1, ordering: .relaxed).newValue <= maxInFlight else {
            inFlight.subtract(1, ordering: .relaxed)
            return .failure(.busy)
        }
        let answer = Answer()
        let thread = Thread {
            answer.set(lookup(host, port: port, flags: 0))
            inFlight.subtract(1, ordering: .relaxed)
        }
        thread.name = "conform-forward-resolve"
        thread.start()
        let (seconds, attoseconds) = timeout.components
        let waited = answer.done.wait(
            timeout: .now() + .nanoseconds(Int(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)))
        guard waited == .success, let result = answer.take() else { return .failure(.timedOut) }
        return result
    }

    private static func lookup(_ host: String, port: UInt16, flags: Int32) -> Result<[ForwardAddress], Failure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = flags | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else { return .failure(.failed(String(cString: gai_strerror(status)))) }
        defer { freeaddrinfo(list) }
        var found: [ForwardAddress] = []
        var cursor = list
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            if let address = entry.pointee.ai_addr, let parsed = ForwardAddress(UnsafePointer(address)),
                !found.contains(parsed)
            {
                found.append(parsed)
            }
        }
        return found.isEmpty ? .failure(.failed("no IPv4 or IPv6 address")) : .success(found)
    }

    /// One lookup's result, handed from its thread to the caller that may have stopped waiting.
    private final class Answer: Sendable {
        let done = DispatchSemaphore(value: 0)
        private let result = Mutex<Result<[ForwardAddress], Failure>?>(nil)

        func set(_ value: Result<[ForwardAddress], Failure>) {
            result.withLock { $0 = value }
            done.signal()
        }

        func take() -> Result<[ForwardAddress], Failure>? { result.withLock { $0 } }
    }
}

/// The addresses of the allowed hosts, so a `CONNECT` to an allowed host's address is opened as that host. Names
/// are resolved when first needed and again after ``lifetime``; a lookup that fails matches nothing.
final class AllowedAddresses: Sendable {
    private let policy: ForwardPolicy
    private let lifetime: Duration
    private let timeout: Duration
    private let cache = Mutex<[String: (addresses: Set<[UInt8]>, at: ContinuousClock.Instant)]>([:])

    init(policy: ForwardPolicy, timeout: Duration, lifetime: Duration = .seconds(30)) {
        self.policy = policy
        self.timeout = timeout
        self.lifetime = lifetime
    }

    /// The allowed host (on `port` through `CONNECT`) one of `addresses` belongs to, if any.
    func host(of addresses: [ForwardAddress], port: UInt16) -> ForwardAuthority? {
        let wanted = Set(addresses.map(\.unmapped))
        for allowed in policy.allowed where (allowed.port ?? 443) == port {
            if !wanted.isDisjoint(with: self.addresses(of: allowed.host)) { return allowed }
        }
        return nil
    }

    private func addresses(of host: String) -> Set<[UInt8]> {
        if let literal = ForwardResolver.numeric(host, port: 443) { return Set(literal.map(\.unmapped)) }
        let now = ContinuousClock.now
        if let kept = cache.withLock({ $0[host] }), kept.at.duration(to: now) < lifetime { return kept.addresses }
        let found: Set<[UInt8]>
        switch ForwardResolver.resolve(host, port: 443, timeout: timeout) {
        case .success(let list): found = Set(list.map(\.unmapped))
        case .failure(.busy): return []  // not asked: asked again next time
        case .failure: found = []
        }
        cache.withLock { $0[host] = (found, now) }
        return found
    }
}
