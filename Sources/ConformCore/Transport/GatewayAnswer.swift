extension HTTPResponse {
    /// Why this response is a gateway's, not the implementation's: a 502, 503 or 504 whose body is not JSON (an HTML
    /// page, plain text, nothing) comes from a proxy, load balancer or gateway in front of it, which the protocol's
    /// JSON API never sends. `nil` for any other response, a JSON 5xx among them (the implementation's own, judged).
    public var gatewayUnavailable: String? {
        guard [502, 503, 504].contains(status.code) else { return nil }
        if !body.isEmpty, (try? JSONValue.parse(body)) != nil { return nil }
        let type = headerFields["Content-Type"].map { " \(HTTPSyntax.quoted($0))" } ?? ""
        let shown = body.isEmpty ? "no body" : "a\(type) body that is not JSON"
        return "\(status.code) \(status.reasonPhrase) with \(shown): a proxy or gateway in front of "
            + "the implementation answered, not the implementation; run again when it is up"
    }
}
