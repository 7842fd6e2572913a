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
        #expect(validate.out.isEmpty && validate.err.isEmpty)
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
}
