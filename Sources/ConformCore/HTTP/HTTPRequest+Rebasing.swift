/// Sending a request to one configured origin, and nowhere else: the one place that joins a base URL and a target.
///
/// A relayed request keeps only its origin-form target (`/path?query`); that target is appended to the base, so the
/// scheme, host and port of what goes out are always the base's. A URL that is neither absolute (`http://…`) nor
/// origin-form (`/…`), such as `@host:port/path` or `host/path`, would change the authority once glued onto a base,
/// so it is refused here.
extension HTTPRequest {
    /// The request sent to `base` (`http://host:port`, optionally with a base path) with its own path and query,
    /// and without the headers of the connection it was recorded on (``HTTPFields/connectionSpecific``): `Host`
    /// follows the new origin, as a backend behind an ingress or a load balancer routes on it.
    public func rebased(onto base: String) throws(RequestTargetError) -> HTTPRequest {
        try rebased(onto: Base(base))
    }

    /// The request sent to a base checked once (``Base``), as ``rebased(onto:)-(String)`` sends it.
    public func rebased(onto base: Base) throws(RequestTargetError) -> HTTPRequest {
        var rebased = self
        rebased.url = try Self.url(base: base, target: url)
        rebased.headerFields = headerFields.endToEnd
        return rebased
    }

    /// `base` followed by the origin-form target of `url` (its path and query).
    public static func url(base: String, target url: String) throws(RequestTargetError) -> String {
        try Self.url(base: Base(base), target: url)
    }

    static func url(base: Base, target url: String) throws(RequestTargetError) -> String {
        if let problem = base.problem {
            throw RequestTargetError(url: url, reason: "the base URL \(HTTPSyntax.quoted(base.text)) \(problem)")
        }
        if let problem = HTTPSyntax.urlFormProblem(url) { throw RequestTargetError(url: url, reason: "it \(problem)") }
        return URLParts.appendingTarget(of: url, to: base.trimmed)
    }

    /// A base URL read once: what is wrong with it, if anything, and the text targets are appended to (without
    /// trailing slashes), for a transport that sends every request there.
    public struct Base: Sendable, Hashable {
        /// The base as given.
        public let text: String
        /// Why requests cannot be sent there (``HTTPSyntax/baseURLProblem(_:)``), or `nil`.
        public let problem: String?
        let trimmed: String

        public init(_ text: String) {
            self.text = text
            problem = HTTPSyntax.baseURLProblem(text)
            var trimmed = Substring(text)
            while trimmed.hasSuffix("/") { trimmed.removeLast() }
            self.trimmed = String(trimmed)
        }
    }
}

/// Why a request was not sent to the configured origin.
public struct RequestTargetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL or request target as the client, the recording or the suite gave it.
    public var url: String
    public var reason: String

    public init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }

    public var description: String { "refused to send \(HTTPSyntax.quoted(url)): \(reason)" }
}

extension HTTPSyntax {
    /// Why `url` is neither an absolute `http(s)://authority/…` URL nor an origin-form `/…` target: a phrase that
    /// follows the URL ("holds spaces …"), or `nil`.
    public static func urlFormProblem(_ url: String) -> String? {
        if !isTarget(url) { return "holds spaces or control characters; percent-encode them" }
        if url.utf8.first == UInt8(ascii: "/") { return nil }
        // Read as bytes: every request the runner sends and every recorded one a replay reads comes through here.
        // The problem of an absolute URL of `scheme` (`.some(nil)`: none), or `nil` when `url` is not of it.
        func absolute(_ scheme: StaticString) -> String?? {
            let prefix = UnsafeBufferPointer(start: scheme.utf8Start, count: scheme.utf8CodeUnitCount)
            guard url.utf8.count >= prefix.count, zip(url.utf8, prefix).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) else {
                return nil
            }
            let authority = url.utf8.dropFirst(prefix.count).prefix {
                $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
            }
            if authority.isEmpty { return .some("names no host after \(scheme)") }
            return .some(authority.contains(UInt8(ascii: "\\")) ? "holds a backslash in its host" : nil)
        }
        if let problem = absolute("http://") ?? absolute("https://") { return problem }
        return
            "is neither origin-form (/path?query) nor absolute (http://host/path); "
            + "joined to a base URL it would reach another host"
    }

    /// Why `base` cannot be an origin requests are sent to (`http(s)://host[:port][/path]`, no query or fragment):
    /// a phrase that follows the URL ("is not http:// or https://"), or `nil`.
    public static func baseURLProblem(_ base: String) -> String? {
        let lower = base.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            return "is not http:// or https://"
        }
        let refused = { (byte: UInt8) in
            byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\\")
        }
        guard isTarget(base), !base.utf8.contains(where: refused) else {
            return "holds a query, a fragment, a backslash, spaces or control characters"
        }
        if URLParts(base).authority.isEmpty { return "names no host" }
        return nil
    }
}
