import ConformCore
import ConformDiagnostics
import ConformRunner
import Foundation

/// Finds suite files and loads them, rendering problems compiler-style.
enum SuiteFiles {
    /// Expands files and directories (recursively, `*.yaml` and `*.yml`, sorted) into file paths.
    static func expand(_ paths: [String], io: CommandIO) throws(CLIFailure) -> [String] {
        var files: [String] = []
        for path in paths {
            let full = io.resolve(path)
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDir) else {
                throw CLIFailure(
                    Diagnostic(
                        .suiteNotFound, file: path, message: "no such file or directory",
                        help: "pass suite files or directories that exist, e.g. 'suites'"))
            }
            if isDir.boolValue {
                files += LoadedSuites.suiteFiles(inDirectory: full).map {
                    (path as NSString).appendingPathComponent($0)
                }
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// The suites a command uses when none are named: `suites` in the current directory, or else the bundled suites
    /// installed beside the executable (`/usr/bin/conform` → `/usr/share/conform/suites`, as the package lays them
    /// out); `suites` when neither exists, so the error names what was looked for.
    static func defaultDirectory(io: CommandIO) -> String {
        if FileManager.default.fileExists(atPath: io.resolve("suites")) { return "suites" }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: installedDirectory, isDirectory: &isDirectory),
            isDirectory.boolValue
        {
            return installedDirectory
        }
        return "suites"
    }

    /// Where the package installs the bundled suites, beside the running executable.
    static var installedDirectory: String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/conform/suites").path
    }

    /// The suite files `positionals` name, or, when they name none, those of ``defaultDirectory(io:)``; when neither
    /// place exists, an error that says where it looked and how to name suites.
    static func given(_ positionals: [String], io: CommandIO) throws(CLIFailure) -> [String] {
        if !positionals.isEmpty { return try expand(positionals, io: io) }
        let directory = defaultDirectory(io: io)
        guard directory == "suites", !FileManager.default.fileExists(atPath: io.resolve("suites")) else {
            return try expand([directory], io: io)
        }
        throw CLIFailure(
            Diagnostic(
                .suiteNotFound,
                message: "no suites named, and none found where they are looked for: \(io.resolve("suites")) "
                    + "(a 'suites' directory here) and \(installedDirectory) (the installed bundled suites)",
                help: "name suite files or directories on the command line (e.g. path/to/suites), or run where a "
                    + "'suites' directory is (a checkout of the kit has one)"))
    }

    /// Loads every file of the profile's suites (the problems of those that failed are in the result, as data).
    static func load(_ files: [String], io: CommandIO) -> LoadedSuites {
        LoadedSuites(names: files, profile: ConformCommand.profile) {
            FileManager.default.contents(atPath: io.resolve($0))
        }
    }
}

extension SuiteFiles {
    /// The `--allow-host` values: a host name or address, with an optional port, nothing else.
    static func allowedHosts(_ parsed: Arguments, subcommand: String) throws(UsageError) -> [String] {
        try parsed.values("--allow-host").map { (host: String) throws(UsageError) -> String in
            let allowed = host.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default: Array("-._:[]".utf8).contains(byte)
                }
            }
            guard allowed, !host.isEmpty, host.count <= 255 else {
                throw UsageError(
                    message: "--allow-host takes HOST or HOST:PORT (no scheme or path), got \(HTTPSyntax.quoted(host))",
                    subcommand: subcommand)
            }
            return host.lowercased()
        }
    }

    /// Each request URL that writes out a host outside `allowed`, as a problem at the URL.
    static func outsideTarget(_ suites: [Suite], allowed: [String]) -> [Diagnostic] {
        let policy = OriginPolicy(bases: [String](), allowedHosts: allowed)
        return suites.flatMap { suite in
            suite.writtenOrigins.filter { !policy.permits($0.origin + "/") }.map { written in
                Diagnostic(
                    .suiteOutsideTarget, file: suite.file, mark: written.mark,
                    message: "the request goes to \(written.origin), a host the suite writes out itself; "
                        + "'conform run' sends only to the target and the values of its base names",
                    help: "address the implementation through {{ mobile }} or {{ backend }}, or pass --allow-host "
                        + URLParts(written.origin).authority)
            }
        }
    }
}

/// A failure the command reports as-is and exits 2 for.
struct CLIFailure: DiagnosticConvertible {
    var diagnostic: Diagnostic
    init(_ diagnostic: Diagnostic) { self.diagnostic = diagnostic }
}
