import ConformTestSupport
import Foundation
import Testing

/// Runs the built `conform` executable as a user would, for what only a real process shows: exit codes and streams.
@Suite struct BinaryTests {
    static let root = TestPaths.root

    /// Runs the built `conform` with `args` and `environment` added, from the repository root.
    func conform(_ args: [String], environment: [String: String] = [:]) async throws -> (
        code: Int32, out: String, err: String
    ) {
        let binary = TestPaths.conformBinary.path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return (-1, "", "\(binary) is missing; build it with 'swift build' before 'swift test --skip-build'")
        }
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        let run = try await ChildProcess.output(
            binary, args, environment: env, directory: Self.root, separateStandardError: true)
        return (run.status, run.output, run.errorOutput)
    }

    @Test func versionAndUsageExitCodes() async throws {
        let version = try await conform(["--version"])
        #expect(version.code == 0)
        #expect(version.out.hasPrefix("conform "))
        let usage = try await conform(["run", "--target", "ftp://x"])
        #expect(usage.code == 64)
        #expect(usage.err.contains("See 'conform run --help' for more information."))
        let nothing = try await conform([])
        #expect(nothing.code == 64)
    }

    @Test func theBundledSuitesConformAgainstTheDefaultTarget() async throws {
        let run = try await conform(["run", "--no-color"])
        #expect(run.code == 0, "conform run printed:\n\(run.out)\(run.err)")
        #expect(run.out.hasSuffix("Result: CONFORMS\n"))
        let validate = try await conform(["validate", "suites"])
        #expect(validate.code == 0)
        #expect(validate.out.hasSuffix(" steps: valid\n") && validate.err.isEmpty)
        #expect(validate.out.hasPrefix("\(try SuitesBundle.files().count) suites, "))
    }

    /// An adapter that closes its stdout (and leaves a child behind) could not run: the process exits 2 with the
    /// cause, long before the exchange timeout, and does not wait out the adapter's grace for what is already gone.
    @Test func anAdapterThatClosesItsStdoutIsExitTwoAtOnce() async throws {
        let started = ContinuousClock.now
        let run = try await conform([
            "run", "suites/01-registration.yaml", "--timeout", "10m", "--target", "exec:exec >&-; sleep 300",
        ])
        let elapsed = ContinuousClock.now - started
        #expect(run.code == 2, "conform run printed:\n\(run.out)\(run.err)")
        #expect(run.out.hasSuffix("Result: COULD NOT RUN\n"))
        #expect(run.out.contains("closed its standard output while still running"))
        // Half the exchange timeout: a loaded machine's slow starts do not fail it, an exchange waiting it out does.
        #expect(elapsed < .seconds(300))
    }

    /// The same for an adapter run as users write it (`python3 adapter.py`, the shell in front) that closes its
    /// stdout after its first reply, or before it: exit 2 at once, not a verdict at the exchange timeout.
    @Test(arguments: ["", " --first"])
    func anAdapterThatClosesItsStdoutAfterAReplyIsExitTwoAtOnce(_ flag: String) async throws {
        let adapter = Self.root.appendingPathComponent("Tests/ConformCLITests/Adapters/closes_stdout.py").path
        let started = ContinuousClock.now
        let run = try await conform([
            "run", "suites/01-registration.yaml", "--timeout", "10m", "--target", "exec:python3 -u '\(adapter)'\(flag)",
        ])
        #expect(run.code == 2, "conform run printed:\n\(run.out)\(run.err)")
        #expect(run.out.hasSuffix("Result: COULD NOT RUN\n"))
        #expect(run.out.contains("closed its standard output while still running"))
        #expect(ContinuousClock.now - started < .seconds(300))
    }

    /// A packet capture given to `check`, `replay` or `diff` is named as one, with the import that makes it a
    /// recording, instead of "neither a recording nor a HAR" (or a suite's YAML error, for `diff`).
    @Test(
        arguments: [
            (
                "pcap",
                [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0] + [UInt8](repeating: 0, count: 8) + [0xFF, 0xFF, 0, 0, 1, 0, 0, 0]
            ),
            (
                "pcapng",
                [0x0A, 0x0D, 0x0D, 0x0A, 28, 0, 0, 0, 0x4D, 0x3C, 0x2B, 0x1A] + [UInt8](repeating: 0, count: 16)
            ),
        ] as [(String, [UInt8])])
    func aPacketCaptureIsSentToImport(_ kind: String, _ header: [UInt8]) async throws {
        let scratch = try Scratch()
        let file = scratch.path("traffic.\(kind)")
        try Data(header).write(to: URL(fileURLWithPath: file))
        for args in [
            ["check", file], ["replay", file], ["diff", "--target", "builtin", "--target", "builtin", file],
        ] {
            let run = try await conform(args)
            #expect(run.code == 2, "\(args[0]) printed:\n\(run.out)\(run.err)")
            #expect(run.err.contains("\(file): error: is a packet capture (\(kind)), not a recording or a HAR\n"))
            #expect(run.err.contains("help: turn it into a recording first (conform import FILE --out recordings/NAME"))
        }
    }

    /// A replay of the bundled recording against the reference it was recorded from is the same behaviour on any day:
    /// the send time of a synced push, which the protocol documents as differing on every run, is ignored as in
    /// `diff`, and compared only with `--no-default-noise`.
    @Test func aReplayIgnoresWhatTheProtocolDocumentsAsVolatile() async throws {
        let replay = try await conform(["replay", "recordings/personalization-flow"])
        #expect(replay.code == 0, "replay printed:\n\(replay.out)\(replay.err)")
        #expect(replay.out.hasSuffix("Result: SAME BEHAVIOUR\n"))
        let strict = try await conform(["replay", "recordings/personalization-flow", "--no-default-noise"])
        #expect(strict.code == 1, "replay printed:\n\(strict.out)\(strict.err)")
        #expect(strict.out.contains("differs $.payloads[0].internalData.sendDateTime"))
        #expect(strict.out.hasSuffix("Result: DIFFERENT BEHAVIOUR\n"))
    }

    @Test func noColorIsHonouredAndPipesGetNone() async throws {
        let run = try await conform(["run", "suites/01-registration.yaml"], environment: ["NO_COLOR": "1"])
        #expect(!run.out.contains("\u{1B}["))
    }

    @Test func anUnreachableTargetCannotRun() async throws {
        let run = try await conform([
            "run", "suites/01-registration.yaml", "--target", "http://127.0.0.1:1", "--timeout", "2",
        ])
        #expect(run.code == 2)
        #expect(run.out.contains("connection refused"))
    }

    /// Control sequences from outside (an adapter's reply and stderr, a suite title, a file name) reach the real
    /// standard output and error escaped, never raw: no window title set, no screen cleared.
    @Test func hostileTextReachesTheStreamsEscaped() async throws {
        let scratch = try Scratch("hostile")
        let hostile = "\u{1b}]0;pwned\u{07}\u{1b}[2J"
        let suite = scratch.path("\(hostile)suite.yaml")
        try #"""
        suite: hostile
        title: "Title \e]0;pwned\a\e[2J"
        steps:
          - name: "step \e[2J"
            request: {url: "/x"}
            expect: {status: 200, headers: {X-Evil: safe}}
        """#.write(toFile: suite, atomically: true, encoding: .utf8)
        let crash = scratch.path("crash.yaml")
        try """
        suite: crash
        title: The adapter crashes
        steps:
          - name: crash
            request: {url: "/crash"}
            expect: {status: 200}
        """.write(toFile: crash, atomically: true, encoding: .utf8)
        let adapter = scratch.path("adapter.sh")
        try #"""
        while read line; do
          case "$line" in *crash*) printf 'adapter says \033]0;pwned\007\033[2J\n' >&2; exit 3;; esac
          id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\).*/\1/')
          printf '{"id":%s,"status":200,"headers":[["X-Evil","\\u001b]0;pwned\\u0007\\u001b[2J"]]}\n' "$id"
        done
        """#.write(toFile: adapter, atomically: true, encoding: .utf8)
        try "Authorization: App abcdefgh12345678\n".write(
            toFile: scratch.path("\(hostile)leak.txt"), atomically: true, encoding: .utf8)

        let run = try await conform(["run", suite, crash, "--verbose", "--target", "exec:sh '\(adapter)'"])
        let scan = try await conform(["scan", scratch.url.path])
        let validate = try await conform(["validate", scratch.path("\(hostile)missing.yaml")])
        for (name, outcome) in [("run", run), ("scan", scan), ("validate", validate)] {
            let streams = outcome.out + outcome.err
            #expect(!streams.contains("\u{1b}") && !streams.contains("\u{07}"), "\(name) printed raw:\n\(streams)")
        }
        #expect(run.code == 2, "run printed:\n\(run.out)\(run.err)")
        #expect(run.out.contains(#"Title \x1b]0;pwned\x07\x1b[2J"#))
        #expect(run.out.contains(#"X-Evil"#) && run.out.contains(#"\x1b]0;pwned\x07\x1b[2J"#))
        #expect(run.out.contains(#"adapter says \x1b]0;pwned\x07\x1b[2J"#), "the adapter's stderr, escaped")
        #expect(scan.code == 1 && scan.out.contains(#"\x1b]0;pwned\x07\x1b[2Jleak.txt"#), "\(scan.out)")
        #expect(validate.code == 2 && validate.err.contains(#"\x1b[2Jmissing.yaml"#), "\(validate.err)")
    }
}
