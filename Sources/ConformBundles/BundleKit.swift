import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import Foundation

/// The kit that writes, merges or verifies a bundle: its version and commit (written to `VERSION` and
/// `bundle.json`, compared when a bundle is verified), the protocol profile its suites load under, and its own
/// bundled suites (what a run covers against, what a bundle's suites are compared with).
public struct BundleKit: Sendable {
    public var version: String
    public var commit: String
    public var profile: ProtocolProfile
    /// The directory of the kit's bundled suites, `nil` when they are not found.
    public var bundledDirectory: String?
    /// The SHA-256 of each of the kit's bundled suite files (empty when they are not found).
    public var bundledSuiteHashes: Set<String>

    public init(
        version: String = ConformVersion.version, commit: String = ConformVersion.commit, profile: ProtocolProfile,
        bundledDirectory: String?
    ) {
        self.version = version
        self.commit = commit
        self.profile = profile
        self.bundledDirectory = bundledDirectory
        bundledSuiteHashes = bundledDirectory.map { RunScope.suiteHashes(inDirectory: $0) } ?? []
    }

    /// The text of a bundle's `VERSION` file written by this kit.
    public var versionFileText: String { "conform \(version)\ncommit \(commit)\n" }

    /// The scope of a run of `suites` with `selection`, against the kit's bundled suites.
    public func scope(selection: [String], suites: [Suite], shard: Shard, failFast: Bool) -> RunScope {
        RunScope(
            running: suites, bundled: bundledSuiteHashes, selection: selection, shard: shard, failFast: failFast)
    }
}

/// Where a bundle's writing, merging or verification tells a person what it does: its verdict line to `out`, its
/// notes to `err`, its problems through `report` (the command line's one diagnostic renderer).
public struct BundleConsole: Sendable {
    public var out: any TextSink
    public var err: any TextSink
    public var report: @Sendable (Diagnostic) -> Void

    public init(out: any TextSink, err: any TextSink, report: @escaping @Sendable (Diagnostic) -> Void) {
        self.out = out
        self.err = err
        self.report = report
    }

    /// Reports why the work cannot go on: a diagnostic through `report`, any other error as its text.
    public func report(failure error: any Error) {
        if let error = error as? any DiagnosticConvertible {
            report(error.diagnostic)
        } else {
            err.write("\(error)\n")
        }
    }
}
