import ConformCore
import ConformDiagnostics
import ConformReport
import Foundation

/// Finds suite files and loads them, for every command that runs suites; each path as given is found through
/// `resolve` (the command line's current directory), and a problem is the diagnostic that names it.
public enum SuiteFiles {
    /// Expands files and directories (recursively, `*.yaml` and `*.yml`, sorted) into file paths.
    public static func expand(_ paths: [String], resolve: (String) -> String) throws(Diagnostic) -> [String] {
        var files: [String] = []
        for path in paths {
            let full = resolve(path)
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDir) else {
                throw Diagnostic(
                    .suiteNotFound, file: path, message: "no such file or directory",
                    help: "pass suite files or directories that exist, e.g. 'suites'")
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
    public static func defaultDirectory(resolve: (String) -> String) -> String {
        if FileManager.default.fileExists(atPath: resolve("suites")) { return "suites" }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: installedDirectory, isDirectory: &isDirectory),
            isDirectory.boolValue
        {
            return installedDirectory
        }
        return "suites"
    }

    /// Where the package installs the bundled suites, beside the running executable.
    public static var installedDirectory: String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/conform/suites").path
    }

    /// The suite files `positionals` name, or, when they name none, those of ``defaultDirectory(resolve:)``; when
    /// neither place exists, an error that says where it looked and how to name suites.
    public static func given(_ positionals: [String], resolve: (String) -> String) throws(Diagnostic) -> [String] {
        if !positionals.isEmpty { return try expand(positionals, resolve: resolve) }
        let directory = defaultDirectory(resolve: resolve)
        guard directory == "suites", !FileManager.default.fileExists(atPath: resolve("suites")) else {
            return try expand([directory], resolve: resolve)
        }
        throw Diagnostic(
            .suiteNotFound,
            message: "no suites named, and none found where they are looked for: \(resolve("suites")) "
                + "(a 'suites' directory here) and \(installedDirectory) (the installed bundled suites)",
            help: "name suite files or directories on the command line (e.g. path/to/suites), or run where a "
                + "'suites' directory is (a checkout of the kit has one)")
    }

    /// Loads every file of `profile`'s suites (the problems of those that failed are in the result, as data).
    public static func load(_ files: [String], profile: ProtocolProfile, resolve: (String) -> String)
        -> LoadedSuites
    {
        LoadedSuites(names: files, profile: profile) { FileManager.default.contents(atPath: resolve($0)) }
    }
}

extension SuiteFiles {
    /// Each request URL that writes out a host outside `allowed`, as a problem at the URL.
    public static func outsideTarget(_ suites: [Suite], allowed: [String]) -> [Diagnostic] {
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

extension SuiteFiles {
    /// The kit's own suites: those installed beside the executable (`../share/conform/suites`), or else those of
    /// the source tree the kit was built from; `nil` when neither is there.
    public static func bundledDirectory() -> String? {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let installed = executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/conform/suites").path
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("suites").path
        for directory in [installed, source] {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue {
                return directory
            }
        }
        return nil
    }

    /// The SHA-256 of each of the kit's bundled suite files (empty when they are not found).
    public static func bundledSuiteHashes() -> Set<String> {
        bundledDirectory().map { RunScope.suiteHashes(inDirectory: $0) } ?? []
    }
}
