import ConformReport
import ConformServer
import ConformTestSupport
import Foundation
import Testing

@testable import ConformCLI

/// Help, usage, completions and the man page all come from the command declarations (`CommandSpec`).
@Suite struct CommandLineTests {
    static let names = CommandSpec.all.map(\.name)

    @Test(arguments: names)
    func helpComesFromTheDeclaration(_ name: String) async throws {
        let command = try #require(CommandSpec.named(name))
        let viaOption = await conformInProcess([name, "--help"])
        let viaHelp = await conformInProcess(["help", name])
        #expect(viaOption.code == 0 && viaHelp.code == 0)
        #expect(viaOption.out == command.helpText)
        #expect(viaHelp.out == command.helpText)
        #expect(command.helpText.contains("USAGE: \(command.usage)\n"))
        for option in command.options { #expect(command.helpText.contains("  \(option.label)")) }
        #expect(CommandSpec.rootHelp.contains("  \(name) "), "the root help lists \(name)")
    }

    @Test func everyCommandIsDeclaredOnceWithOptionsDeclaredOnce() {
        #expect(Set(Self.names).count == Self.names.count)
        for command in CommandSpec.all {
            let options = command.options.map(\.name)
            #expect(Set(options).count == options.count, "\(command.name) declares an option twice")
            #expect(options.last == "--help", "\(command.name) ends with --help")
        }
    }

    @Test func everyRangedOptionRefusesTheValuesJustOutsideItsRange() throws {
        for command in CommandSpec.all {
            for option in command.options {
                guard case .integer(let range) = option.kind else { continue }
                // The command's required options are given, so only the value under test can be refused.
                let required = command.options.filter { $0.required && $0.name != option.name }
                    .flatMap { [$0.name, "x"] }
                for bad in [range.lowerBound - 1, range.upperBound + 1] {
                    #expect(throws: UsageError.self, "\(command.name) \(option.name) \(bad)") {
                        try Arguments(required + [option.name, "\(bad)"], command: command)
                    }
                }
                let parsed = try Arguments(required + [option.name, "\(range.upperBound)"], command: command)
                #expect(try parsed.integer(option.name) == range.upperBound)
            }
        }
    }

    /// `--max-head` sets the listener's request head limit and widens the response head room with it, on every
    /// command that listens; out of range it is a usage error naming the range.
    @Test func maxHeadSetsTheListenersHeadLimits() throws {
        for name in ["serve", "mock", "record"] {
            let command = try #require(CommandSpec.named(name))
            let required = command.options.filter(\.required).flatMap { [$0.name, "x"] }
            let defaults = try Arguments(required, command: command).serverLimits()
            #expect(defaults == .default)
            let raised = try Arguments(required + ["--max-head", "64KB"], command: command).serverLimits()
            #expect(raised.maxHeaderBytes == 64 * 1024)
            #expect(raised.maxResponseHeadBytes == 128 * 1024)
            #expect(raised.connectionMemoryBytes > defaults.connectionMemoryBytes)
            let small = try Arguments(required + ["--max-head", "2KB"], command: command).serverLimits()
            #expect(small.maxResponseHeadBytes == HTTPServerLimits.default.maxResponseHeadBytes)
            #expect(throws: UsageError.self, "\(name)") {
                try Arguments(required + ["--max-head", "2MB"], command: command).serverLimits()
            }
        }
    }

    @Test func aRequiredOptionIsAUsageErrorWhenMissing() async {
        let result = await conformInProcess(["record", "--upstream", "http://127.0.0.1:1"])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("Error: missing --out DIRECTORY\nUsage: conform record [--upstream "))
    }

    @Test func anUnknownOptionSuggestsTheClosestDeclaredOne() throws {
        let run = try #require(CommandSpec.named("run"))
        func refusal(_ args: [String]) -> String? {
            do {
                _ = try Arguments(args, command: run)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(refusal(["--reprot", "json:x"]) == "unknown option '--reprot'; did you mean '--report'?")
        #expect(refusal(["--frobnicate"]) == "unknown option '--frobnicate'")
    }

    @Test func helpForAnUnknownCommandIsAUsageError() async {
        let result = await conformInProcess(["help", "frobnicate"])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("Error: unknown subcommand 'frobnicate'\n"))
    }

    /// Runs the bash completion function for `words` (the last one being completed) and returns its replies.
    ///
    /// Waited for through the child's termination handler (`ChildProcess`), never `Process.waitUntilExit()`: on a
    /// thread of Swift's pool that call spins on a run loop, and a clean-clone run hung in it at full CPU after bash
    /// had exited.
    func bashComplete(_ words: [String], script: URL) async throws -> [String] {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let run = try await ChildProcess.output(
            "/bin/bash",
            [
                "-c",
                "source '\(script.path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _conform; "
                    + "printf '%s\\n' \"${COMPREPLY[@]}\"",
            ], separateStandardError: true)
        return run.output.split(separator: "\n").map(String.init)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash"), "needs bash"))
    func bashCompletesCommandsOptionsAndDeclaredValues() async throws {
        let scratch = try Scratch()
        let script = scratch.url.appendingPathComponent("conform.bash")
        let generated = await conformInProcess(["completion", "bash"])
        #expect(generated.code == 0)
        try Data(generated.out.utf8).write(to: script)
        #expect(try await bashComplete(["conform", "re"], script: script) == ["record", "replay"])
        #expect(try await bashComplete(["conform", "run", "--fa"], script: script) == ["--fault", "--fail-fast"])
        #expect(
            try await bashComplete(["conform", "run", "--fault", "depersonalizeN"], script: script) == [
                "depersonalizeNoop"
            ])
        #expect(try await bashComplete(["conform", "completion", "z"], script: script) == ["zsh"])
        #expect(try await bashComplete(["conform", "help", "m"], script: script) == ["merge", "mock", "man"])
        #expect(try await bashComplete(["conform", "run", "--jobs", ""], script: script) == [])
    }

    @Test(arguments: ["zsh", "fish"])
    func zshAndFishCompleteEveryDeclaredOption(_ shell: String) async {
        let generated = await conformInProcess(["completion", shell])
        #expect(generated.code == 0)
        for command in CommandSpec.all {
            for option in command.options {
                let spelled = shell == "fish" ? "-l \(option.name.dropFirst(2)) " : "\(option.name)["
                #expect(generated.out.contains(spelled), "\(shell): \(command.name) \(option.name)")
            }
        }
    }

    @Test func theManPageDocumentsEveryCommandAndOption() async {
        let page = await conformInProcess(["man"])
        #expect(page.code == 0)
        #expect(page.out.hasPrefix(".\\\" Generated by 'conform man'"))
        #expect(page.out.contains(".TH CONFORM 1 \"\" \"conform \(ConformCommand.version)\""))
        for command in CommandSpec.all {
            #expect(page.out.contains(".SS \"conform \(command.name)\"\n"))
            for option in command.options where option.name != "--help" {
                #expect(page.out.contains("\\fB\(Escaping.roff(option.name))\\fR"), "\(command.name) \(option.name)")
            }
        }
        #expect(!page.out.unicodeScalars.contains { $0.value > 0x7E }, "roff input stays ASCII")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff"), "needs groff"))
    func theManPageRendersWithoutWarnings() async throws {
        let scratch = try Scratch()
        let page = scratch.url.appendingPathComponent("conform.1")
        try Data(await conformInProcess(["man"]).out.utf8).write(to: page)
        // Waited for through its termination handler, as `bashComplete` says why.
        let groff = try await ChildProcess.output(
            "/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-z", page.path], separateStandardError: true)
        #expect(groff.status == 0)
        #expect(groff.errorOutput.isEmpty, "\(groff.errorOutput)")
    }

    /// Every command writes to the process's streams through terminal sinks, so whatever text it writes, from
    /// wherever, is escaped on the way (`BinaryTests.hostileTextReachesTheStreamsEscaped` shows it end to end).
    @Test func theProcessStreamsAreTerminalSinks() {
        let io = CommandIO.standard
        #expect(io.out is TerminalSink)
        #expect(io.err is TerminalSink)
    }
}
