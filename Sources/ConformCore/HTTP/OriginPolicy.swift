/// The origins a run may send requests to: the target's base URLs, the values the user gave them, and hosts the
/// user allowed by name. A suite cannot widen it: an absolute URL to anywhere else is refused before it is sent.
public struct OriginPolicy: Sendable, Hashable, CustomStringConvertible {
    /// Normalized origins (`scheme://host[:port]`, lower case, default ports left out).
    public private(set) var origins: Set<String>
    /// Hosts allowed by name (`--allow-host`): `host` (any port) or `host:port`, lower case.
    public private(set) var hosts: Set<String>

    /// The origins of `bases` (empty ones, for an adapter's origin-form URLs, are left out) and the `allowedHosts`.
    public init(bases: some Sequence<String>, allowedHosts: some Sequence<String> = [String]()) {
        origins = Set(bases.compactMap(Self.origin(of:)))
        hosts = Set(allowedHosts.map { $0.lowercased() })
    }

    /// Whether `url` may be sent: an origin-form target (it goes to the target itself), or an absolute URL whose
    /// origin is one of ``origins`` or whose host is allowed.
    public func permits(_ url: String) -> Bool {
        guard let origin = Self.origin(of: url) else { return url.utf8.first == UInt8(ascii: "/") }
        if origins.contains(origin) { return true }
        let authority = Self.authority(of: origin)
        return hosts.contains(authority) || hosts.contains(Self.host(of: authority))
    }

    public var description: String {
        let all = origins.sorted() + hosts.sorted().map { "host \($0)" }
        return all.isEmpty ? "none" : all.joined(separator: ", ")
    }

    /// `scheme://host[:port]` of an absolute http(s) URL, normalized; `nil` for anything else.
    ///
    /// The runner asks this of every request and of every captured string, so an ASCII URL is read as bytes in one
    /// pass, and anything that does not begin `http:` or `https:` is refused at its first bytes; a URL with other
    /// bytes takes the Unicode path (``unicodeOrigin(of:)``), which gives the same answer for ASCII.
    public static func origin(of url: String) -> String? {
        var utf8 = Substring(url).utf8
        guard let first = utf8.first, first | 0x20 == UInt8(ascii: "h") else { return nil }
        if let hash = utf8.firstIndex(of: UInt8(ascii: "#")) { utf8 = utf8[..<hash] }
        // `http:` or `https:`, any case, then `//`.
        var index = utf8.startIndex
        for expected in "http".utf8 {
            guard index < utf8.endIndex, utf8[index] | 0x20 == expected else { return nil }
            utf8.formIndex(after: &index)
        }
        var secure = false
        if index < utf8.endIndex, utf8[index] | 0x20 == UInt8(ascii: "s") {
            secure = true
            utf8.formIndex(after: &index)
        }
        guard utf8[index...].starts(with: "://".utf8) else { return nil }
        let authorityStart = utf8.index(index, offsetBy: 3)
        let authorityEnd =
            utf8[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? utf8.endIndex
        var authority = utf8[authorityStart..<authorityEnd]
        guard authority.allSatisfy({ $0 < 0x80 }) else { return unicodeOrigin(of: url) }
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.index(after: at)...] }
        if authority.isEmpty { return nil }
        let defaultPort = secure ? ":443".utf8 : ":80".utf8
        if authority.count >= defaultPort.count,
            authority[authority.index(authority.endIndex, offsetBy: -defaultPort.count)...].elementsEqual(defaultPort)
        {
            authority = authority[..<authority.index(authority.endIndex, offsetBy: -defaultPort.count)]
        }
        let scheme = secure ? "https://" : "http://"
        return String(unsafeUninitializedCapacity: scheme.utf8.count + authority.count) { buffer in
            var count = 0
            for byte in scheme.utf8 {
                buffer[count] = byte
                count += 1
            }
            for byte in authority {
                buffer[count] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                count += 1
            }
            return count
        }
    }

    /// ``origin(of:)`` for a URL whose authority holds non-ASCII bytes: lower-cased as Unicode text.
    static func unicodeOrigin(of url: String) -> String? {
        let parts = URLParts(url)
        guard let separator = parts.origin.range(of: "://") else { return nil }
        let scheme = parts.origin[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var authority = parts.authority
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        authority = authority.lowercased()
        if authority.isEmpty { return nil }
        let defaultPort = scheme == "http" ? ":80" : ":443"
        if authority.hasSuffix(defaultPort) { authority.removeLast(defaultPort.count) }
        return "\(scheme)://\(authority)"
    }

    private static func authority(of origin: String) -> String {
        origin.range(of: "://").map { String(origin[$0.upperBound...]) } ?? origin
    }

    /// The host of `host[:port]` (an IPv6 literal keeps its brackets).
    private static func host(of authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[...end])
        }
        return authority.split(separator: ":", maxSplits: 1).first.map(String.init) ?? authority
    }
}
