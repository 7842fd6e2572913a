import ConformCore

extension ServeCommand {
    /// `--public-url`: an origin (`https://host[:port]`), which the reference announces as its base URL.
    static func publicOrigin(_ parsed: Arguments) throws(UsageError) -> String? {
        guard let text = parsed.value("--public-url") else { return nil }
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        if let problem = HTTPSyntax.baseURLProblem(trimmed) {
            throw UsageError(
                message: "--public-url \(HTTPSyntax.quoted(text)) \(problem); give http(s)://HOST[:PORT]",
                subcommand: "serve")
        }
        let parts = URLParts(trimmed)
        guard parts.path.isEmpty || parts.path == "/" else {
            throw UsageError(
                message:
                    "--public-url \(HTTPSyntax.quoted(text)) has a path; give the origin only, http(s)://HOST[:PORT]",
                subcommand: "serve")
        }
        return parts.origin
    }
}
