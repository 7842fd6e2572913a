import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A host (a DNS name or an IP literal, lower-cased, without brackets or a trailing dot) and an optional port.
public struct ForwardAuthority: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    /// `nil` for the scheme's usual port: 443 through `CONNECT`, 80 for plain HTTP.
    public var port: UInt16?

    public init(host: String, port: UInt16? = nil) {
        self.host = Self.normalized(host)
        self.port = port
    }

    /// Reads `HOST`, `HOST:PORT` or `[IPV6]:PORT`; `nil` for anything else (a scheme, a path, a bad name or port).
    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= 260 else { return nil }
        var host = Substring(text)
        var port: UInt16?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            guard Self.isIPv6(String(host)) else { return nil }
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = UInt16(rest.dropFirst()), value > 0 else { return nil }
                port = value
            }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            guard let value = UInt16(host[host.index(after: colon)...]), value > 0 else { return nil }
            port = value
            host = host[..<colon]
        } else if host.contains(":") {
            guard Self.isIPv6(String(host)) else { return nil }
        }
        // A fully qualified name's trailing dot (`localhost.`, `localhost.:8443`) names the same host.
        if host.hasSuffix("."), !host.contains(":") { host = host.dropLast() }
        guard Self.isHostName(String(host)) || Self.isIPv6(String(host)) else { return nil }
        self.init(host: String(host), port: port)
    }

    public var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(shown):\($0)" } ?? shown
    }

    static func normalized(_ host: String) -> String {
        var text = host.lowercased()
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Letters, digits, hyphens and underscores in dot-separated labels of 1 to 63 bytes, 253 in all.
    static func isHostName(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count)
                && label.utf8.allSatisfy {
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                        || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                }
        }
    }

    static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}

/// Which hosts a forward proxy opens, decrypts and records, and what it does with the others.
///
/// Nothing reaches a host the user did not name: an allowed host is intercepted (`CONNECT`, with a leaf certificate
/// for it) or forwarded (absolute-form plain HTTP) and recorded; every other host is refused, or with
/// ``OtherHosts/tunnel`` passed through `CONNECT` undecrypted and never recorded. The ``eventsHost`` is answered
/// by the proxy itself and never leaves it.
public struct ForwardPolicy: Sendable, Hashable {
    /// What happens to a `CONNECT` to a host that is not allowed.
    public enum OtherHosts: String, Sendable, Hashable, CaseIterable {
        /// `403`, and the connection is closed.
        case refuse
        /// Bytes are passed both ways without decryption, bounded in time, and not recorded: only to the
        /// ``ForwardPolicy/tunnelPorts``, and never to an address of this machine (loopback, unspecified,
        /// link-local, an interface's).
        case tunnel
    }

    /// The ports `--other-hosts tunnel` passes `CONNECT` through to when none are named: HTTPS's.
    public static let defaultTunnelPorts: [UInt16] = [443]

    /// What the proxy does with one `CONNECT`.
    public enum Decision: Sendable, Hashable {
        case intercept
        case tunnel
        case refuse(String)
    }

    /// The host apps post app events to through the proxy; `.invalid` never resolves (RFC 6761), so no real host
    /// can be reached by that name.
    public static let eventsHost = "conform.invalid"

    public var allowed: [ForwardAuthority]
    public var otherHosts: OtherHosts
    /// The ports another host is tunnelled to with ``OtherHosts/tunnel`` (sorted, no duplicates); a `CONNECT` to
    /// another port is refused.
    public var tunnelPorts: [UInt16]

    public init(
        allowed: [ForwardAuthority], otherHosts: OtherHosts = .refuse, tunnelPorts: [UInt16] = defaultTunnelPorts
    ) {
        self.allowed = allowed
        self.otherHosts = otherHosts
        self.tunnelPorts = Array(Set(tunnelPorts)).sorted()
    }

    /// `refuse`, `tunnel` (port 443) or `tunnel:PORT[,PORT...]`, as `--other-hosts` takes it; `nil` for anything else.
    public static func otherHosts(_ text: String) -> (OtherHosts, [UInt16])? {
        if text == "refuse" { return (.refuse, defaultTunnelPorts) }
        if text == "tunnel" { return (.tunnel, defaultTunnelPorts) }
        guard text.hasPrefix("tunnel:") else { return nil }
        let list = text.dropFirst("tunnel:".count).split(separator: ",", omittingEmptySubsequences: false)
        var ports: [UInt16] = []
        for item in list {
            guard (1...5).contains(item.utf8.count), item.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let port = UInt16(item), port > 0
            else { return nil }
            ports.append(port)
        }
        return ports.isEmpty ? nil : (.tunnel, ports)
    }

    /// What `--other-hosts` says for this policy: `refuse`, `tunnel` (443 alone) or `tunnel:PORT,...`.
    public var otherHostsText: String {
        guard otherHosts == .tunnel else { return "refuse" }
        if tunnelPorts == Self.defaultTunnelPorts { return "tunnel" }
        return "tunnel:" + tunnelPorts.map(String.init).joined(separator: ",")
    }

    /// Whether `host:port` is allowed for a scheme whose usual port is `usual`.
    func allows(host: String, port: UInt16, usual: UInt16) -> Bool {
        let host = ForwardAuthority.normalized(host)
        return allowed.contains { $0.host == host && ($0.port ?? usual) == port }
    }

    /// Whether requests to `https://host:port` (in a `CONNECT` tunnel) are opened and recorded.
    public func allowsTLS(host: String, port: UInt16) -> Bool {
        allows(host: host, port: port, usual: 443)
    }

    /// Whether an absolute-form plain-HTTP request to `http://host:port` is forwarded and recorded.
    public func allowsPlain(host: String, port: UInt16) -> Bool {
        allows(host: host, port: port, usual: 80)
    }

    /// Whether `host` is the proxy's own events host.
    public static func isEventsHost(_ host: String) -> Bool {
        ForwardAuthority.normalized(host) == eventsHost
    }

    /// What to do with `CONNECT host:port`.
    public func connect(host: String, port: UInt16) -> Decision {
        if allowsTLS(host: host, port: port) || (Self.isEventsHost(host) && port == 443) { return .intercept }
        let host = ForwardAuthority.normalized(host)
        if Self.isEventsHost(host) {
            return .refuse("\(Self.eventsHost) is the proxy's own host for app events; connect to its port 443")
        }
        let ports = allowed.filter { $0.host == host }.map { String($0.port ?? 443) }
        if !ports.isEmpty {
            return .refuse(
                "CONNECT to \(ForwardAuthority(host: host, port: port)) is not allowed: \(host) is allowed on port "
                    + "\(ports.joined(separator: ", ")) only; add --allow-host \(ForwardAuthority(host: host, port: port))"
            )
        }
        if otherHosts == .tunnel {
            if tunnelPorts.contains(port) { return .tunnel }
            let ports = tunnelPorts.map(String.init).joined(separator: ",")
            return .refuse(
                "CONNECT to \(ForwardAuthority(host: host, port: port)) is not allowed: other hosts are tunnelled to "
                    + "port \(ports) only; add the port with --other-hosts tunnel:\(ports),\(port)")
        }
        return .refuse(
            "CONNECT to \(ForwardAuthority(host: host, port: port)) is not allowed; the proxy opens only the hosts "
                + "named with --allow-host (or passes others through with --other-hosts tunnel)")
    }
}
