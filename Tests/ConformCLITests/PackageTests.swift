import ConformCLI
import ConformTestSupport
import Foundation
import Testing

/// The Debian package `scripts/package` builds, checked as a user gets it: its contents, its binary's libraries, and
/// `conform run` from the extracted tree against the embedded reference, with the bundled suites it installs.
///
/// Heavy: it builds conform in release with the Swift runtime linked statically (minutes, every core), in its own
/// scratch directory (`.build/package-build`, kept between runs so later builds are incremental). It runs among the
/// machine-wide tests of `scripts/test`.
@Suite struct PackageTests {
    static let dpkgDeb = "/usr/bin/dpkg-deb"

    /// Runs `executable` with `arguments` in `directory`; output goes through files, so no pipe can fill up.
    static func run(_ executable: String, _ arguments: [String], in directory: URL) throws -> (
        code: Int32, out: String, err: String
    ) {
        let id = UUID().uuidString
        let outFile = directory.appendingPathComponent(".out-\(id)")
        let errFile = directory.appendingPathComponent(".err-\(id)")
        FileManager.default.createFile(atPath: outFile.path, contents: nil)
        FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outFile)
            try? FileManager.default.removeItem(at: errFile)
        }
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try ProcessExit(starting: process).wait()
        return (
            process.terminationStatus, (try? String(contentsOf: outFile, encoding: .utf8)) ?? "",
            (try? String(contentsOf: errFile, encoding: .utf8)) ?? ""
        )
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: dpkgDeb), "needs dpkg-deb (apt-get install dpkg)"))
    func thePackageInstallsABinaryWithoutSwiftLibrariesThatRunsTheBundledSuites() throws {
        let scratch = try Scratch()
        let root = TestPaths.root
        let built = try Self.run(
            root.appendingPathComponent("scripts/package").path,
            ["--out", scratch.path("out"), "--scratch-path", root.appendingPathComponent(".build/package-build").path],
            in: scratch.url)
        try #require(built.code == 0, "scripts/package failed:\n\(built.err.suffix(3000))")
        let deb = built.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(deb.hasSuffix("/conform_\(ConformCommand.version)_amd64.deb"), "\(deb)")

        // Contents: the binary, every bundled suite, the docs, the man page and the completions.
        let listing = try Self.run(Self.dpkgDeb, ["-c", deb], in: scratch.url)
        #expect(listing.code == 0)
        let suites = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("suites").path)
            .filter { $0.hasSuffix(".yaml") }
        #expect(suites.count > 10)
        var expected = [
            "./usr/bin/conform", "./usr/share/man/man1/conform.1.gz", "./usr/share/doc/conform/README.md",
            "./usr/share/doc/conform/copyright", "./usr/share/doc/conform/docs/suite-format.md",
            "./usr/share/bash-completion/completions/conform", "./usr/share/zsh/vendor-completions/_conform",
            "./usr/share/fish/vendor_completions.d/conform.fish",
        ]
        expected += suites.map { "./usr/share/conform/suites/\($0)" }
        // The documents the reports cite (decisions, endpoints, flow steps).
        expected += ShippedDocs.files.map { "./usr/share/doc/conform/\($0)" }
        for path in expected { #expect(listing.out.contains(" \(path)\n"), "the package lacks \(path)") }
        #expect(listing.out.contains("-rwxr-xr-x root/root"), "the binary is executable and owned by root")

        // Depends: the Debian libraries it links, and no Swift toolchain.
        let depends = try Self.run(Self.dpkgDeb, ["-f", deb, "Depends"], in: scratch.url).out
        for package in ["libc6", "libcurl4", "libyaml-0-2", "libmicrohttpd12", "libssl3"] {
            #expect(depends.contains(package), "Depends lacks \(package): \(depends)")
        }
        #expect(!depends.lowercased().contains("swift"), "\(depends)")

        // Extracted as apt would install it: the binary needs no Swift library and finds the bundled suites.
        let tree = scratch.url.appendingPathComponent("tree")
        #expect(try Self.run(Self.dpkgDeb, ["-x", deb, tree.path], in: scratch.url).code == 0)
        let binary = tree.appendingPathComponent("usr/bin/conform").path
        let ldd = try Self.run("/usr/bin/ldd", [binary], in: scratch.url)
        #expect(ldd.code == 0)
        #expect(!ldd.out.contains("libswift") && !ldd.out.contains("libFoundation"), "\(ldd.out)")
        #expect(!ldd.out.contains("not found"), "\(ldd.out)")
        let work = scratch.url.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let run = try Self.run(binary, ["run", "--report", "json:report.json"], in: work)
        #expect(run.code == 0, "\(run.out.suffix(3000))\(run.err)")
        #expect(run.out.contains("Conform: \(suites.count) suites"), "\(run.out.prefix(300))")
        #expect(run.out.hasSuffix("Result: CONFORMS\n"))
        #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent("report.json").path))
        let man = try Self.run("/bin/sh", ["-c", "gzip -dc '\(tree.path)/usr/share/man/man1/conform.1.gz'"], in: work)
        #expect(man.out.contains(".TH CONFORM 1"))
    }
}
