import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A name a leaf certificate is issued for: a DNS name, or an IP address (an IP SAN, as clients check IP literals).
///
/// Names come from outside (a client's SNI, the command line), so only what a certificate may hold is accepted:
/// DNS names of letters, digits, hyphens and underscores in labels of 1 to 63 characters (a `*` only as the whole
/// first label), 253 characters in all; IPv4 and IPv6 addresses in any form `inet_pton` reads.
public struct ServerName: Sendable, Hashable, Comparable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable { case dns, ip }

    public let kind: Kind
    /// The canonical text: a lower-case DNS name without a trailing dot, or the address as `inet_ntop` writes it.
    public let text: String

    /// Parses a DNS name or an IP address (IPv6 with or without brackets); `nil` for anything else.
    public init?(_ raw: String) {
        var name = raw
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if let address = Self.ipText(name) {
            kind = .ip
            text = address
            return
        }
        if name.hasSuffix(".") { name.removeLast() }
        name = name.lowercased()
        guard (1...253).contains(name.utf8.count) else { return nil }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for (index, label) in labels.enumerated() {
            guard (1...63).contains(label.utf8.count) else { return nil }
            if label == "*" {
                guard index == 0, labels.count > 2 else { return nil }
                continue
            }
            for byte in label.utf8 {
                let allowed =
                    (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x5F
                if !allowed { return nil }
            }
        }
        kind = .dns
        text = name
    }

    public var description: String { text }

    /// The entry in OpenSSL's `subjectAltName` configuration syntax (`DNS:…` or `IP:…`); safe because the text
    /// holds no comma, colon-free DNS labels and canonical addresses only.
    var altName: String { kind == .ip ? "IP:\(text)" : "DNS:\(text)" }

    public static func < (a: ServerName, b: ServerName) -> Bool {
        (a.kind == .dns ? 0 : 1, a.text) < (b.kind == .dns ? 0 : 1, b.text)
    }

    private static func ipText(_ name: String) -> String? {
        var v4 = in_addr()
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        if inet_pton(AF_INET, name, &v4) == 1, inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count)) != nil {
            return String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, name, &v6) == 1, inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil {
            return String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
        }
        return nil
    }
}
