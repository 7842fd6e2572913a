import Foundation

/// Runs a program to its end with standard output and error captured in one file, without blocking a thread.
public enum ChildProcess {
    /// What a finished program left: its exit status and what it printed.
    public struct Outcome: Sendable {
        public var status: Int32
        /// Standard output, and standard error too unless it was asked for apart.
        public var output: String
        /// Standard error when it was asked for apart, otherwise empty.
        public var errorOutput: String
    }

    /// Runs `executable` with `arguments`; output goes to `log` (created or emptied first), standard error too unless
    /// `errorLog` is given, so a large output never fills a pipe. `environment` replaces the inherited one when
    /// given; standard input is empty.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: URL? = nil, log: URL, errorLog: URL? = nil
    ) async throws -> Int32 {
        try Data().write(to: log)
        if let errorLog { try Data().write(to: errorLog) }
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let errorHandle = try errorLog.map { try FileHandle(forWritingTo: $0) }
        defer { try? errorHandle?.close() }
        process.standardOutput = handle
        process.standardError = errorHandle ?? handle
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

    /// Runs `executable` with `arguments` and returns its exit status and output: standard output and error
    /// together, or apart when `separateStandardError`.
    public static func output(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil,
        separateStandardError: Bool = false
    ) async throws -> Outcome {
        let scratch = try Scratch("process")
        let log = scratch.url.appendingPathComponent("output.log")
        let errorLog = separateStandardError ? scratch.url.appendingPathComponent("error.log") : nil
        let status = try await run(
            executable, arguments, environment: environment, directory: directory, log: log, errorLog: errorLog)
        func text(_ file: URL?) -> String { file.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? "" }
        return Outcome(status: status, output: text(log), errorOutput: text(errorLog))
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
