import ConformCore
import ConformRunner
import ConformYAML
import Foundation

/// Finds suite files and loads them, rendering problems compiler-style.
enum SuiteFiles {
    /// Names every suite may use without declaring them: the base URLs the target supplies.
    static let predefinedNames: Set<String> = ["mobile", "backend"]

    /// Expands files and directories (recursively, `*.yaml` and `*.yml`, sorted) into file paths.
    static func expand(_ paths: [String], io: CommandIO) throws(CLIFailure) -> [String] {
        var files: [String] = []
        for path in paths {
            let full = io.resolve(path)
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDir) else {
                throw CLIFailure(
                    "\(path): error: no such file or directory\nhelp: pass suite files or directories that exist, e.g. 'suites'"
                )
            }
            if isDir.boolValue {
                let found = (FileManager.default.enumerator(atPath: full)?.compactMap { $0 as? String } ?? [])
                    .filter {
                        ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml"))
                            && !$0.split(separator: "/").contains { $0.hasPrefix(".") }
                    }
                    .sorted()
                files += found.map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// Loads every file; returns the suites and the rendered diagnostics of the files that failed.
    static func load(_ files: [String], io: CommandIO, color: Bool) -> (suites: [Suite], problems: String, count: Int) {
        let loader = SuiteLoader(predefinedNames: predefinedNames)
        var suites: [Suite] = []
        var problems = ""
        var count = 0
        var seen: [String: String] = [:]
        for file in files {
            let data = FileManager.default.contents(atPath: io.resolve(file))
            guard let data else {
                problems += "\(file): error: cannot read the file\nhelp: check that it exists and is readable\n"
                count += 1
                continue
            }
            do {
                var suite = try loader.load(bytes: [UInt8](data), file: file)
                suite.contentHash = ContentHash.of(data)
                if let other = seen[suite.id] {
                    problems +=
                        "\(file):1:1: error: suite id '\(suite.id)' is also used by \(other)\nhelp: give every suite a unique 'suite:' id\n"
                    count += 1
                    continue
                }
                seen[suite.id] = file
                suites.append(suite)
            } catch {
                let source = String(decoding: data, as: UTF8.self)
                for d in error.diagnostics { problems += d.rendered(source: source, color: color) + "\n" }
                count += error.diagnostics.count
            }
        }
        return (suites, problems, count)
    }
}

/// A failure the command reports as-is and exits 2 for.
struct CLIFailure: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
