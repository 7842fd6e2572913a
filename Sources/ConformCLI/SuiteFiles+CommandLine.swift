import ConformCore
import ConformDiagnostics
import ConformRunner

/// The command line's side of ``SuiteFiles``: paths found from the current directory, suites loaded under the
/// profile, and `--allow-host`.
extension SuiteFiles {
    /// Expands files and directories (recursively, `*.yaml` and `*.yml`, sorted) into file paths.
    static func expand(_ paths: [String], io: CommandIO) throws(CLIFailure) -> [String] {
        do {
            return try expand(paths, resolve: io.resolve)
        } catch {
            throw CLIFailure(error)
        }
    }

    /// The suites a command uses when none are named (``defaultDirectory(resolve:)``).
    static func defaultDirectory(io: CommandIO) -> String { defaultDirectory(resolve: io.resolve) }

    /// The suite files `positionals` name, or those of the default directory (``given(_:resolve:)``).
    static func given(_ positionals: [String], io: CommandIO) throws(CLIFailure) -> [String] {
        do {
            return try given(positionals, resolve: io.resolve)
        } catch {
            throw CLIFailure(error)
        }
    }

    /// Loads every file of the profile's suites (the problems of those that failed are in the result, as data).
    static func load(_ files: [String], io: CommandIO) -> LoadedSuites {
        load(files, profile: ConformCommand.profile, resolve: io.resolve)
    }
}

extension SuiteFiles {
    /// The `--allow-host` values: a host name or address, with an optional port, nothing else.
    static func allowedHosts(_ parsed: Arguments, subcommand: String) throws(UsageError) -> [String] {
        try parsed.values("--allow-host").map { (host: String) throws(UsageError) -> String in
            guard HTTPSyntax.isHostAndPort(host) else {
                throw UsageError(
                    message: "--allow-host takes HOST or HOST:PORT (no scheme or path), got \(HTTPSyntax.quoted(host))",
                    subcommand: subcommand)
            }
            return host.lowercased()
        }
    }
}

/// A failure the command reports as-is and exits 2 for.
struct CLIFailure: DiagnosticConvertible {
    var diagnostic: Diagnostic
    init(_ diagnostic: Diagnostic) { self.diagnostic = diagnostic }
}
