import ConformTestSupport
import Foundation

/// `conform serve` as a child process on 127.0.0.1, any free port: started by a test, stopped when it is done.
final class ServedReference: Sendable {
    /// `http://127.0.0.1:PORT`, read from the line the command prints when it listens.
    let baseURL: String
    private let process: SpawnedProcess
    /// Signalled by the process's termination handler, so `stop` can wait for the end with a bound.
    private let ended = DispatchSemaphore(value: 0)
    private let scratch: URL

    /// Starts the built `conform serve --port 0 ARGS` and waits until it prints the address it listens on.
    init(_ arguments: [String] = []) async throws {
        let binary = try Self.binary()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("conform-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let out = scratch.appendingPathComponent("stdout")
        let err = scratch.appendingPathComponent("stderr")
        try Data().write(to: out)
        try Data().write(to: err)
        process = SpawnedProcess()
        process.executableURL = binary
        process.arguments = ["serve", "--port", "0"] + arguments
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let ended = self.ended
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        // A bound on start-up (30 s), polled without holding a thread: not a timing assertion.
        for _ in 0..<600 {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if let range = text.range(
                of: #"Serving [^\n]* on (http://127\.0\.0\.1:[0-9]+)"#, options: .regularExpression),
                let url = text[range].range(of: #"http://[0-9.:]+"#, options: .regularExpression)
            {
                baseURL = String(text[range][url])
                return
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: scratch)
        throw ServeFailure(description: "conform serve did not print its address; stderr:\n\(stderr)")
    }

    /// Stops the server (SIGTERM) and removes its scratch directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            _ = ended.wait(timeout: .now() + 60)
        }
        try? FileManager.default.removeItem(at: scratch)
    }

    deinit { stop() }

    /// The `conform` executable built next to this test bundle (`swift build` builds it).
    static func binary() throws -> URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("conform"),
            root.appendingPathComponent(".build/debug/conform"),
        ].compactMap { $0 }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw ServeFailure(
                description: "the conform executable is missing (looked at \(candidates.map(\.path))); "
                    + "build it with 'swift build --build-tests' before 'swift test --skip-build'")
        }
        return found
    }
}

/// `conform serve` did not come up.
struct ServeFailure: Error, CustomStringConvertible {
    let description: String
}
