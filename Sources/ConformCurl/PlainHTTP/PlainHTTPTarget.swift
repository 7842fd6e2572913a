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
    /// for a name to resolve, a user name, a zone, an IPv6 address not in its shortest form, or a bad port.
    private static func address(_ authority: Substring) -> (SocketAddress, String)? {
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains("%") else { return nil }
        var hostPart: Substring
        var portPart: Substring?
        let family: Int32
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portPart = after.dropFirst()
            }
            family = AF_INET6
        } else {
            if let colon = authority.firstIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            } else {
                hostPart = authority
            }
            family = AF_INET
        }
        var port: UInt16 = 80
        if let portPart {
            guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(portPart), (1...65535).contains(value)
            else { return nil }
            port = UInt16(value)
        }
        var bytes = [UInt8](repeating: 0, count: family == AF_INET ? 4 : 16)
        let parsed = bytes.withUnsafeMutableBytes { inet_pton(family, String(hostPart), $0.baseAddress) }
        guard parsed == 1 else { return nil }
        if family == AF_INET6 {
            // libcurl writes an IPv6 address in its shortest form: only that form is sent as written.
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let written = bytes.withUnsafeBytes { inet_ntop(AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
            guard written != nil,
                String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    == String(hostPart)
            else { return nil }
            return (SocketAddress(family: family, bytes: bytes, port: port), "[\(hostPart)]")
        }
        // inet_pton takes only the four-decimal form, which is the form libcurl writes.
        return (SocketAddress(family: family, bytes: bytes, port: port), String(hostPart))
    }
}
