import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformProxy
import ConformServer
import ConformTraffic

#if canImport(Glibc)
    import Glibc
#endif

/// `record --forward`: the allowed hosts, what to do with others, and the forward proxy serving the session.
enum ForwardOptions {
    /// The policy `--forward`, `--allow-host` and `--other-hosts` ask for; `nil` without `--forward`.
    static func policy(_ parsed: Arguments) throws(UsageError) -> ForwardPolicy? {
        let hosts = parsed.values("--allow-host")
        let other = parsed.value("--other-hosts")
        guard parsed.has("--forward") else {
            if !hosts.isEmpty || other != nil {
                throw UsageError(
                    message: "--allow-host and --other-hosts belong to a forward proxy; add --forward",
                    subcommand: "record")
            }
            return nil
        }
        if hosts.isEmpty {
            throw UsageError(
                message: "--forward needs at least one --allow-host HOST: the hosts the proxy opens and records",
                subcommand: "record")
        }
        var allowed: [ForwardAuthority] = []
        for text in hosts {
            guard let authority = ForwardAuthority(text), ServerName(authority.host) != nil else {
                throw UsageError(
                    message: "--allow-host takes HOST or HOST:PORT (no scheme or path), got \(HTTPSyntax.quoted(text))",
                    subcommand: "record")
            }
            if ForwardPolicy.isEventsHost(authority.host) {
                throw UsageError(
                    message: "--allow-host \(text): \(ForwardPolicy.eventsHost) is the proxy's own host for app events",
                    subcommand: "record")
            }
            allowed.append(authority)
        }
        guard let (otherHosts, tunnelPorts) = ForwardPolicy.otherHosts(other ?? "refuse") else {
            throw UsageError(
                message: "--other-hosts takes refuse, tunnel (port 443) or tunnel:PORT[,PORT...] (ports 1 to 65535, "
                    + "such as tunnel:443,8443), got \(HTTPSyntax.quoted(other ?? ""))",
                subcommand: "record")
        }
        for option in ["--tls", "--tls-cert", "--tls-port", "--tls-name"]
        where parsed.has(option) || parsed.value(option) != nil {
            throw UsageError(
                message: "\(option) is for a reverse proxy; a forward proxy takes plain HTTP and CONNECT, and opens "
                    + "each allowed host with a leaf of its own from the local CA",
                subcommand: "record")
        }
        return ForwardPolicy(allowed: allowed, otherHosts: otherHosts, tunnelPorts: tunnelPorts)
    }

    /// Runs the session as a forward proxy: leaves per intercepted host from the local CA (made on first use).
    static func run(
        policy: ForwardPolicy, parsed: Arguments, transport: any Transport, out: String, redaction: RedactionPolicy,
        listen: (host: String, port: UInt16), timeout: Duration, io: CommandIO
    ) async throws(UsageError) -> Int32 {
        let reports = try ProxySessions.reports(parsed, subcommand: "record", io: io)
        guard let authority = CACommand.authority(io) else { return ConformCommand.ExitCode.cannotRun }
        // Each refusal and failed handshake is told once as it comes (on stderr, beside live violations) and counted.
        let err = io.err
        let notices = ForwardNotices { err.write(TerminalText.escaped($0) + "\n") }
        return await ProxySessions.run(
            upstreams: [:], transport: transport, out: out, redaction: redaction, append: parsed.has("--append"),
            listen: listen, check: parsed.has("--check"), reports: reports,
            codes: try ProxySessions.codes(parsed, subcommand: "record"), banner: "Recording",
            limits: ProxyLimits(requestDeadline: timeout + .seconds(1)),
            configure: { session in session.serveForward(policy: policy, authority: authority, notices: notices) },
            io: io)
    }
}
