import ConformCore
import ConformDiagnostics
import ConformMobileMessaging
import ConformReport
import ConformRunner
import Foundation

/// The `conform` command line: parses arguments, wires transports and maps results to exit codes.
public enum ConformCommand {
    public static let version = ConformVersion.version
    /// The commit the binary was built from (embedded at build time by `Package.swift`), or `unknown`.
    public static let commit = ConformVersion.commit
    /// The protocol every command speaks: its bases and template functions, handed to the engine.
    static let profile = ProtocolProfile.mobileMessaging

    /// The exit codes of a command that has no result: it could not run, or its command line was wrong. A result's
    /// exit code is its ``RunStatus``.
    public enum ExitCode {
        public static let cannotRun = RunStatus.cannotRun.rawValue
        public static let usage = RunStatus.usage.rawValue
    }

    /// What runs a subcommand once its arguments are parsed and checked.
    typealias Handler = @Sendable (Arguments, CommandIO) async throws -> Int32

    /// Every subcommand with arguments of its own, by name: its declaration and what runs it.
    static let subcommands: [String: (CommandSpec, Handler)] = [
        "completion": (.completion, { try MetaCommands.completion($0, io: $1) }),
        "man": (.man, { try MetaCommands.man($0, io: $1) }),
        "run": (.run, { try await RunCommand.main($0, io: $1) }),
        "merge": (.merge, { try await MergeCommand.main($0, io: $1) }),
        "verify": (.verify, { try await VerifyCommand.main($0, io: $1) }),
        "validate": (.validate, { try ValidateCommand.main($0, io: $1) }),
        "serve": (.serve, { try await ServeCommand.main($0, io: $1) }),
        "mock": (.mock, { try await MockCommand.main($0, io: $1) }),
        "record": (.record, { try await RecordCommand.main($0, io: $1) }),
        "capture": (.capture, { try await CaptureCommands.live($0, io: $1) }),
        "replay": (.replay, { try await ReplayCommand.main($0, io: $1) }),
        "diff": (.diff, { try await DiffCommand.main($0, io: $1) }),
        "explore": (.explore, { try await ExploreCommand.main($0, io: $1) }),
        "check": (.check, { try await CheckCommand.main($0, io: $1) }),
        "import": (.importHAR, { try HARCommands.importHAR($0, io: $1) }),
        "export": (.exportHAR, { try HARCommands.exportHAR($0, io: $1) }),
        "scan": (.scan, { try await HARCommands.scan($0, io: $1) }),
        "ca": (.ca, { try CACommand.main($0, io: $1) }),
    ]

    /// Runs the command line `arguments` (the first is the program name) and returns the exit code.
    public static func main(_ arguments: [String], io: CommandIO = .standard) async -> Int32 {
        let args = Array(arguments.dropFirst())
        guard let first = args.first else {
            io.out.write(CommandSpec.rootHelp)
            return ExitCode.usage
        }
        let rest = Array(args.dropFirst())
        do {
            switch first {
            case "-h", "--help": io.out.write(CommandSpec.rootHelp); return 0
            case "help": return try MetaCommands.help(rest, io: io)
            case "--version": io.out.write("conform \(version) (commit \(commit))\n"); return 0
            case let name where subcommands[name] != nil:
                let (spec, handler) = subcommands[name]!
                // Every subcommand's prologue, once: its options parsed and checked against its declaration, and
                // `--help` answered from it.
                var parsed = try Arguments(rest, command: spec)
                parsed.environment = io.environment
                if parsed.has("--help") {
                    io.out.write(spec.helpText)
                    return 0
                }
                return try await handler(parsed, io)
            default:
                let suggestion = closestMatch(to: first, in: CommandSpec.all.map(\.name)).map {
                    "; did you mean '\($0)'?"
                }
                throw UsageError(
                    message: "unknown subcommand \(HTTPSyntax.quoted(first))\(suggestion ?? "")", subcommand: nil)
            }
        } catch let error as UsageError {
            io.err.write("Error: \(error.message)\n")
            if let sub = error.subcommand {
                io.err.write(
                    "Usage: \(CommandSpec.named(sub)?.usage ?? "conform \(sub)")\n  See 'conform \(sub) --help' for more information.\n"
                )
            } else {
                io.err.write("Usage: conform <subcommand>\n  See 'conform --help' for more information.\n")
            }
            return ExitCode.usage
        } catch {
            io.report(diagnostic(for: error))
            return ExitCode.cannotRun
        }
    }

    /// An error as a diagnostic: its own when it has one, else `cli.failed` with the error's text.
    static func diagnostic(for error: any Error) -> Diagnostic {
        (error as? any DiagnosticConvertible)?.diagnostic ?? Diagnostic(.cliFailed, message: "\(error)")
    }
}

/// Where a command writes and reads: standard streams in the tool, memory in tests.
public struct CommandIO: Sendable {
    public var out: any TextSink
    public var err: any TextSink
    /// Whether standard output is a terminal that wants colour.
    public var color: Bool
    /// Whether standard error is a terminal, for progress lines.
    public var interactive: Bool
    public var environment: [String: String]
    public var currentDirectory: String

    public init(
        out: any TextSink, err: any TextSink, color: Bool, interactive: Bool = false, environment: [String: String],
        currentDirectory: String
    ) {
        self.out = out
        self.err = err
        self.color = color
        self.interactive = interactive
        self.environment = environment
        self.currentDirectory = currentDirectory
    }

    /// The process's own streams, as terminal sinks (control characters in every text escaped, wherever it came
    /// from); colour only on a TTY and without NO_COLOR.
    public static var standard: CommandIO {
        let env = ProcessInfo.processInfo.environment
        let tty = isatty(STDOUT_FILENO) == 1
        let noColor = env["NO_COLOR"].map { !$0.isEmpty } ?? false
        return CommandIO(
            out: TerminalSink(FileHandleSink.standardOutput), err: TerminalSink(FileHandleSink.standardError),
            color: tty && !noColor && env["TERM"] != "dumb",
            interactive: isatty(STDERR_FILENO) == 1 && env["TERM"] != "dumb", environment: env,
            currentDirectory: FileManager.default.currentDirectoryPath
        )
    }

    /// Resolves `path` against the current directory.
    public func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : (currentDirectory as NSString).appendingPathComponent(path)
    }
}
