import Foundation

/// Runs a program to its end with standard output and error captured in one file, without blocking a thread.
public enum ChildProcess {
    /// What a finished program left: its exit status and everything it printed.
    public struct Outcome: Sendable {
        public var status: Int32
        public var output: String
    }

    /// Runs `executable` with `arguments`; output goes to `log` (created or emptied first), so a large output never
    /// fills a pipe. `environment` replaces the inherited one when given; standard input is empty.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: URL? = nil, log: URL
    ) async throws -> Int32 {
        try Data().write(to: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }

    /// Runs `executable` with `arguments` and returns its exit status and output (standard output and error).
    public static func output(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil
    ) async throws -> Outcome {
        let scratch = try Scratch("process")
        let log = scratch.url.appendingPathComponent("output.log")
        let status = try await run(executable, arguments, environment: environment, directory: directory, log: log)
        return Outcome(status: status, output: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}

/// Programs a test needs from the machine: for `.enabled(if:)` traits, so a test that cannot run shows as skipped,
/// or to name the program a test runs.
public enum Tool {
    /// The full path of `name` on `PATH`, or `nil` when it is not installed.
    public static func path(_ name: String) -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return dirs.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether `name` is on `PATH`.
    public static func has(_ name: String) -> Bool { path(name) != nil }
}
