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
    public static func origin(of url: String) -> String? {
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
