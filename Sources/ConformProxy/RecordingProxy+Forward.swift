import ConformCore
import ConformServer

extension RecordingProxy {
    /// Forward mode: a request names its origin (`http://host/path` as a plain proxy request, `https://host/path`
    /// from a `CONNECT` tunnel); one to an allowed host is forwarded there and recorded with the host as its
    /// upstream, one to the events host is an app event, and every other is refused unsent and unrecorded.
    func forwardToOrigin(_ request: HTTPRequest, policy: ForwardPolicy) async -> HTTPResponse {
        if let problem = HTTPSyntax.urlFormProblem(request.url) {
            return refusal(400, "BAD_REQUEST_TARGET", "request target \(HTTPSyntax.quoted(request.url)) \(problem)")
        }
        if request.url.utf8.first == UInt8(ascii: "/") {
            if Self.isEventsRequest(request) { return await receiveEventsOffTheIOThread(request) }
            return refusal(
                400, "BAD_REQUEST_TARGET",
                "request target \(HTTPSyntax.quoted(request.url)) is origin-form; this is a forward proxy: set it as "
                    + "the HTTP proxy of the app or the device, which then names each request's URL")
        }
        guard let target = ForwardTarget(request.url) else {
            return refusal(
                400, "BAD_REQUEST_TARGET",
                "request target \(HTTPSyntax.quoted(request.url)) is no http:// or https:// URL with a host "
                    + "(and no user information)")
        }
        if ForwardPolicy.isEventsHost(target.authority.host) {
            var local = request
            local.url = target.path
            if Self.isEventsRequest(local) { return receiveEvents(local) }
            return refusal(
                404, "NOT_FOUND",
                "\(ForwardPolicy.eventsHost) answers only POST \(Self.eventsPath) (app events); nothing is forwarded")
        }
        let allowed =
            target.isTLS
            ? policy.allowsTLS(host: target.authority.host, port: target.port)
            : policy.allowsPlain(host: target.authority.host, port: target.port)
        guard allowed else {
            let reason =
                "\(target.origin) is not an allowed host; the proxy forwards and records only the hosts named with "
                + "--allow-host (add --allow-host \(target.authority))"
            notices?.note(.refusedRequest, "refused \(request.method) \(target.origin)…: \(reason)")
            return refusal(403, "FORWARD_NOT_ALLOWED", reason)
        }
        var originForm = request
        originForm.url = target.path
        return await send(originForm, upstream: target.authority.description, base: target.origin)
    }
}

/// The origin and origin-form target of an absolute URL a forward proxy received.
struct ForwardTarget {
    var isTLS: Bool
    var authority: ForwardAuthority
    /// The port requests go to: the URL's, or the scheme's usual one.
    var port: UInt16
    /// `scheme://host[:port]` as the upstream is addressed.
    var origin: String
    /// `/path?query` (`/` when the URL has no path).
    var path: String

    init?(_ url: String) {
        let lower = url.prefix(8).lowercased()
        let rest: Substring
        if lower.hasPrefix("http://") {
            isTLS = false
            rest = url.dropFirst(7)
        } else if lower.hasPrefix("https://") {
            isTLS = true
            rest = url.dropFirst(8)
        } else {
            return nil
        }
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authorityText = String(rest[..<end])
        guard !authorityText.contains("@"), let authority = ForwardAuthority(authorityText) else { return nil }
        let tail = rest[end...]
        guard !tail.contains("#") else { return nil }
        self.authority = authority
        self.port = authority.port ?? (isTLS ? 443 : 80)
        self.origin = (isTLS ? "https://" : "http://") + authority.description
        self.path = tail.hasPrefix("/") ? String(tail) : "/" + tail
    }
}
