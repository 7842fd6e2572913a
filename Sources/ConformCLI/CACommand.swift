import ConformCrypto
import ConformDiagnostics
import ConformProxy

/// `conform ca`: the local CA, made once, shown and exported.
enum CACommand {
    static func main(_ parsed: Arguments, io: CommandIO) throws(UsageError) -> Int32 {
        guard parsed.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[0])'", subcommand: "ca")
        }
        guard let store = store(io) else { return ConformCommand.ExitCode.cannotRun }
        let authority: CertificateAuthority
        let state: String
        let exports: [CertificateExports.File]
        do {
            if parsed.has("--reset") {
                authority = try store.reset()
                state = "new; devices and clients that trusted the old one must trust this one"
            } else {
                let (found, created) = try store.loadOrCreate()
                authority = found
                state = created ? "created" : "existing"
            }
            exports = try CertificateExports.write(
                authority.certificate, to: parsed.value("--out").map(io.resolve) ?? store.directory)
        } catch {
            io.report(
                Diagnostic(.tlsUnusable, message: error.message, help: "see 'conform ca --help' and docs/tls.md"))
            return ConformCommand.ExitCode.cannotRun
        }
        io.out.write("Local CA: \(store.directory) (\(state))\n")
        io.out.write("Subject: \(authority.certificate.subject)\n")
        io.out.write("SHA-256 fingerprint: \(authority.certificate.sha256Fingerprint)\n")
        io.out.write("Key: \(store.keyPath) (mode 0600; never shared, never exported)\n")
        io.out.write("Certificate exports:\n")
        let width = exports.map(\.purpose.count).max() ?? 0
        for file in exports {
            io.out.write("  \(file.purpose):" + String(repeating: " ", count: width - file.purpose.count + 1))
            io.out.write(file.path + "\n")
        }
        io.out.write("Trust it where the client runs (docs/tls.md); then use --tls on serve, mock or record.\n")
        return 0
    }

    /// The CA's store in the user's configuration directory, or a reported problem.
    static func store(_ io: CommandIO) -> CertificateAuthorityStore? {
        guard let directory = CertificateAuthorityStore.defaultDirectory(environment: io.environment) else {
            io.report(
                Diagnostic(
                    .tlsUnusable, message: "neither XDG_CONFIG_HOME nor HOME is an absolute path",
                    help: "set HOME (or XDG_CONFIG_HOME) to the directory the local CA may live under"))
            return nil
        }
        return CertificateAuthorityStore(directory: directory)
    }

    /// The local CA, made first when there is none (which is said once), or a reported problem.
    static func authority(_ io: CommandIO) -> CertificateAuthority? {
        guard let store = store(io) else { return nil }
        switch store.loadOrCreateNoting() {
        case .success(let loaded):
            for notice in loaded.notices { io.out.write(notice + "\n") }
            return loaded.authority
        case .failure(let problem):
            io.report(problem)
            return nil
        }
    }
}
