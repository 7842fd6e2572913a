import ConformCore

#if canImport(Glibc)
    import Glibc
#endif

/// Where a plain `http://` URL goes, when ``PlainHTTPClient`` can send it without libcurl: a numeric IPv4 or IPv6
/// address (nothing to resolve), no user name or password, a request target of visible ASCII. Any other URL is
/// libcurl's (`nil`).
///
/// What goes on the wire is what libcurl sends for the same URL: the target as written (libcurl's
/// `CURLOPT_PATH_AS_IS`), without the fragment, `/` for an empty path; `Host` names the address and the port unless it
/// is 80.
struct PlainHTTPTarget: Equatable {
    /// The socket address the connection goes to.
    let address: SocketAddress
    /// `Host` header's value.
    let host: String
    /// The request target: path and query.
    let target: String

    /// A numeric address and port, as `connect` takes it.
    struct SocketAddress: Hashable {
        let family: Int32
        /// The address in network order: 4 bytes for IPv4, 16 for IPv6.
        let bytes: [UInt8]
        let port: UInt16
    }

    init?(_ url: String) {
        var utf8 = Substring(url).utf8
        let scheme = "http://".utf8
        guard utf8.starts(with: scheme) else { return nil }
        utf8 = utf8.dropFirst(scheme.count)
        let slash = UInt8(ascii: "/")
        let question = UInt8(ascii: "?")
        let hash = UInt8(ascii: "#")
        let authorityEnd = utf8.firstIndex { $0 == slash || $0 == question || $0 == hash } ?? utf8.endIndex
        let authority = Substring(utf8[utf8.startIndex..<authorityEnd])
        var rest = utf8[authorityEnd...]
        if let fragment = rest.firstIndex(of: hash) { rest = rest[..<fragment] }
        // Bytes libcurl would refuse or encode, and spaces: libcurl decides.
        guard rest.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        guard let (address, hostText) = Self.address(authority) else { return nil }
        self.address = address
        self.host = address.port == 80 ? hostText : "\(hostText):\(address.port)"
        let path = String(Substring(rest))
        if path.isEmpty {
            target = "/"
        } else if path.utf8.first == question {
            target = "/" + path
        } else {
            target = path
        }
    }

    /// The address an authority names (a numeric host and an optional port), with the host as `Host` writes it; `nil`
    /// for a name to resolve, a user name, a zone, an IPv6 address not in its shortest form, or a bad port. Read on
    /// bytes: it runs for every request.
    private static func address(_ authority: Substring) -> (SocketAddress, String)? {
        let bytes = authority.utf8
        guard !bytes.isEmpty, !bytes.contains(UInt8(ascii: "@")), !bytes.contains(UInt8(ascii: "%")) else { return nil }
        let colon = UInt8(ascii: ":")
        var host: Substring.UTF8View.SubSequence
        var port: Substring.UTF8View.SubSequence?
        let family: Int32
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = bytes[bytes.index(after: bytes.startIndex)..<close]
            let after = bytes[bytes.index(after: close)...]
            if !after.isEmpty {
                guard after.first == colon else { return nil }
                port = after.dropFirst()
            }
            family = AF_INET6
        } else {
            if let at = bytes.firstIndex(of: colon) {
                host = bytes[..<at]
                port = bytes[bytes.index(after: at)...]
            } else {
                host = bytes[...]
            }
            family = AF_INET
        }
        var number: UInt16 = 80
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            let value = port.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            guard (1...65535).contains(value) else { return nil }
            number = UInt16(value)
        }
        let hostText = String(Substring(host))
        if family == AF_INET {
            guard let quad = ipv4(host) else { return nil }
            return (SocketAddress(family: family, bytes: quad, port: number), hostText)
        }
        var address = [UInt8](repeating: 0, count: 16)
        guard address.withUnsafeMutableBytes({ inet_pton(family, hostText, $0.baseAddress) }) == 1 else { return nil }
        // libcurl writes an IPv6 address in its shortest form: only that form is sent as written.
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = address.withUnsafeBytes { inet_ntop(AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
        guard written != nil,
            String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) == hostText
        else { return nil }
        return (SocketAddress(family: family, bytes: address, port: number), "[\(hostText)]")
    }

    /// The four bytes of a dotted-quad IPv4 address (four decimals of 0 to 255 without leading zeros: `inet_pton`'s
    /// form, which is also the form libcurl writes).
    static func ipv4(_ text: Substring.UTF8View.SubSequence) -> [UInt8]? {
        var quad: [UInt8] = []
        quad.reserveCapacity(4)
        var value = 0
        var digits = 0
        for byte in text {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, quad.count < 3 else { return nil }
                quad.append(UInt8(value))
                value = 0
                digits = 0
                continue
            }
            guard byte >= 0x30 && byte <= 0x39, !(digits > 0 && value == 0) else { return nil }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
            guard value <= 255 else { return nil }
        }
        guard digits > 0, quad.count == 3 else { return nil }
        quad.append(UInt8(value))
        return quad
    }
}
