import Foundation

/// Headless Chromium for the tests that look at the HTML report as a reader would.
public enum Chromium {
    public static let installHelp = """
        Chromium is needed to check the HTML report in a real browser, and it is not installed.
        Install it with 'CONFORM_WITH_BROWSER=1 scripts/setup' (what scripts/test and CI do) or 'apt-get install -y chromium',
        or point CONFORM_CHROMIUM at a Chromium or Chrome binary (it is unset or not executable now).
        """

    /// `CONFORM_CHROMIUM`, else the first of chromium, chromium-browser, google-chrome on PATH.
    public static func binary() -> String? {
        let env = ProcessInfo.processInfo.environment
        if let given = env["CONFORM_CHROMIUM"], !given.isEmpty {
            return FileManager.default.isExecutableFile(atPath: given) ? given : nil
        }
        return ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap(Tool.path).first
    }

    /// What went wrong running Chromium.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs Chromium headless on `page` with `arguments`; returns standard output. Gives up after 60 s.
    public static func run(_ binary: String, _ arguments: [String], page: URL, work: URL) throws -> String {
        let profile = work.appendingPathComponent("profile-\(UUID().uuidString)")
        let out = work.appendingPathComponent("stdout-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let handle = try FileHandle(forWritingTo: out)
        defer { try? handle.close() }
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments =
            [
                "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--no-default-browser-check",
                "--disable-dev-shm-usage", "--hide-scrollbars", "--user-data-dir=\(profile.path)",
            ] + arguments + [page.absoluteString]
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        let exit = try ProcessExit(starting: process)
        if !exit.wait(limit: .seconds(60)) {
            process.terminate()
            exit.wait()
        }
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "chromium \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return String(decoding: try Data(contentsOf: out), as: UTF8.self)
    }
}
