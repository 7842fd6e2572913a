import ConformCore
import ConformRunner
import Foundation
import Testing

@testable import ConformCLI

/// Numbers on the command line: every value outside its range is a usage error (exit 64) naming the option,
/// never a trap, a wrapped value or a silent default.
@Suite struct HostileNumberTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    func conform(_ args: [String]) async -> (code: Int32, out: String, err: String) {
        await conformInProcess(args, in: Self.root)
    }

    static let badDurations = [
        "inf", "-inf", "nan", "1e300", "1e16", "1e10", "-1", "0", "0ms", "25h", "90000", "x", "",
    ]

    /// Each subcommand with a duration option, with the arguments it needs up to that option.
    static let durationOptions: [(args: [String], option: String)] = [
        (["run", "suites/01-registration.yaml"], "--timeout"),
        (["run", "suites/01-registration.yaml", "--target", "exec:/bin/cat"], "--timeout"),
        (["mock", "suites/01-registration.yaml"], "--timeout"),
        (["replay", "recordings/personalization-flow"], "--timeout"),
        (["record", "--upstream", "http://127.0.0.1:1", "--out", "/nonexistent/never-written"], "--timeout"),
    ]

    @Test(arguments: badDurations)
    func outOfRangeDurationsAreUsageErrors(_ value: String) async {
        for (args, option) in Self.durationOptions {
            let result = await conform(args + [option, value])
            #expect(result.code == 64, "\(args) \(option) \(value): \(result.err)")
            #expect(
                result.err.contains(
                    "Error: \(option) takes a duration from 1ms to 24h such as 30, 5s or 200ms, got '\(value)'"),
                "\(args): \(result.err)")
        }
    }

    @Test(arguments: ["-1", "65536", "1e5", "99999999999999999999", "nan", "x"])
    func outOfRangePortsAreUsageErrors(_ value: String) async {
        for args in [["serve"], ["mock", "suites/01-registration.yaml"]] {
            let result = await conform(args + ["--port", value])
            #expect(result.code == 64, "\(args) --port \(value): \(result.err)")
            #expect(result.err.contains("Error: --port takes 0 to 65535, got '\(value)'"), "\(result.err)")
        }
    }

    @Test(arguments: [
        ("replay", "--connections", "0"), ("replay", "--connections", "257"), ("serve", "--threads", "65"),
    ])
    func outOfRangeCountsAreUsageErrors(_ subcommand: String, _ option: String, _ value: String) async {
        let args = subcommand == "replay" ? ["replay", "recordings/personalization-flow"] : [subcommand]
        let result = await conform(args + [option, value, option + "=" + "99999999999999999999"])
        #expect(result.code == 64)
        #expect(result.err.contains("Error: \(option) takes "), "\(result.err)")
    }

    @Test func durationsInEveryFormAreAccepted() throws {
        let command = CommandSpec(
            name: "run", abstract: "", overview: "",
            options: ["--a", "--b", "--c", "--d", "--e", "--absent"].map {
                OptionSpec($0, "SECONDS", .duration(Arguments.timeoutRange), help: "")
            })
        let parsed = try Arguments(["--a", "30", "--b", "1.5", "--c", "200ms", "--d", "2m"], command: command)
        #expect(try parsed.duration("--a") == .seconds(30))
        #expect(try parsed.duration("--b") == .milliseconds(1500))
        #expect(try parsed.duration("--c") == .milliseconds(200))
        #expect(try parsed.duration("--d") == .seconds(120))
        #expect(try parsed.duration("--absent") == nil)
        // Declared values are checked while parsing, before the command reads any.
        #expect(throws: UsageError.self) { try Arguments(["--e", "24h"], command: command) }
    }
}
