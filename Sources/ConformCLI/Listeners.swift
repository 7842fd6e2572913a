import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformProxy
import ConformServer

extension ListenerTLS {
    /// Reads `--tls`, `--tls-cert`/`--tls-key`, `--tls-name` and `--tls-port`; a problem with the CA or the files is
    /// reported and gives `nil`.
    static func resolve(_ parsed: Arguments, host: String, subcommand: String, io: CommandIO) throws(UsageError)
        -> ListenerTLS?
    {
        let certificateFile = parsed.value("--tls-cert")
        let keyFile = parsed.value("--tls-key")
        let extraPort = try parsed.port("--tls-port")
        let local = parsed.has("--tls") || (extraPort != nil && certificateFile == nil)
        let extraNames = parsed.values("--tls-name")
        if !local && certificateFile == nil && keyFile == nil {
            if !extraNames.isEmpty {
                throw UsageError(message: "--tls-name names a --tls certificate; add --tls", subcommand: subcommand)
            }
            return .plain
        }
        if (certificateFile == nil) != (keyFile == nil) {
            throw UsageError(message: "--tls-cert and --tls-key go together", subcommand: subcommand)
        }
        let source: Source
        if let certificateFile, let keyFile {
            if parsed.has("--tls") || !extraNames.isEmpty {
                throw UsageError(
                    message: "--tls and --tls-name make a certificate from the local CA; --tls-cert brings your own: "
                        + "use one or the other", subcommand: subcommand)
            }
            source = .own(certificateFile: certificateFile, keyFile: keyFile)
        } else {
            var names: [ServerName] = []
            for text in extraNames {
                guard let name = ServerName(text) else {
                    throw UsageError(
                        message: "--tls-name \(HTTPSyntax.quoted(text)) is not a DNS name or an IP address",
                        subcommand: subcommand)
                }
                names.append(name)
            }
            guard let authority = CACommand.authority(io) else { return nil }
            source = .localCA(authority, extraNames: names)
        }
        switch make(source, host: host, extraPort: extraPort, resolve: io.resolve) {
        case .success(let tls): return tls
        case .failure(let problem):
            io.report(problem)
            return nil
        }
    }
}

extension Listeners {
    /// Writes ``announcement``, one line each.
    func announce(_ io: CommandIO) {
        for line in announcement { io.out.write(line + "\n") }
    }
}

extension Arguments {
    /// The listener's limits: the server's defaults, with `--max-head` when given (response heads may then be twice
    /// as large, and never less than the default room).
    func serverLimits() throws(UsageError) -> HTTPServerLimits {
        var limits = HTTPServerLimits.default
        if let size = try size("--max-head") {
            limits.maxHeaderBytes = size
            limits.maxResponseHeadBytes = max(limits.maxResponseHeadBytes, 2 * size)
        }
        return limits
    }
}
