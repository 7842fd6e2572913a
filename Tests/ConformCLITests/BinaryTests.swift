import ConformTestSupport
import Foundation
import Testing

/// Runs the built `conform` executable as a user would, for what only a real process shows: exit codes and streams.
@Suite struct BinaryTests {
    static let root = TestPaths.root

    func conform(_ args: [String], environment: [String: String] = [:]) async throws -> (
        code: Int32, out: String, err: String
    ) {
        try await offThePool { try Self.runConform(args, environment: environment) }
    }

    static func runConform(_ args: [String], environment: [String: String]) throws -> (
        code: Int32, out: String, err: String
    ) {
        let binary = root.appendingPathComponent(".build/debug/conform")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            return (-1, "", "\(binary.path) is missing; build it with 'swift build' before 'swift test --skip-build'")
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = args
        process.currentDirectoryURL = root
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outData, as: UTF8.self),
            String(decoding: errData, as: UTF8.self)
        )
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
