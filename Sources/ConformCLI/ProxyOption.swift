import ConformCore

/// `run --proxy URL`: the HTTP proxy an http(s) target is reached through.
enum ProxyOption {
    /// The proxy URL, checked to be `http://HOST:PORT`; `nil` without the option.
    static func parse(_ parsed: Arguments, target: Target) throws(UsageError) -> String? {
        guard let url = parsed.value("--proxy") else { return nil }
        guard case .http = target else {
            throw UsageError(
                message: "--proxy is for an http:// or https:// --target; \(target.description) sends no HTTP itself",
                subcommand: "run")
        }
        let lower = url.lowercased()
        guard lower.hasPrefix("http://"), HTTPSyntax.baseURLProblem(url) == nil,
            !url.dropFirst(7).contains("/") || url.hasSuffix("/") && url.dropFirst(7).filter({ $0 == "/" }).count == 1
        else {
            throw UsageError(
                message: "--proxy takes http://HOST:PORT (the proxy's own address, no path), got "
                    + HTTPSyntax.quoted(url), subcommand: "run")
        }
        return url
    }
}
