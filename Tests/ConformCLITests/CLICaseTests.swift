import ConformCLI
import ConformReport
import ConformRunner
import Foundation
import Testing

/// Runs `conform` in process over each case directory: `args`, then expected `stdout`, `stderr` and `exit`.
@Suite struct CLICaseTests {
    static let casesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Cases")

    static var caseNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: casesDirectory.path)) ?? []).filter {
            !$0.hasPrefix(".")
        }.sorted()
    }

    @Test(arguments: caseNames)
    func cliCase(_ name: String) async throws {
        let dir = Self.casesDirectory.appendingPathComponent(name)
        let argsText = try String(contentsOf: dir.appendingPathComponent("args"), encoding: .utf8)
        let args = ["conform"] + argsText.split(whereSeparator: \.isWhitespace).map(String.init)
        let out = MemorySink()
        let err = MemorySink()
        let io = CommandIO(out: out, err: err, color: false, environment: [:], currentDirectory: dir.path)
        let code = await ConformCommand.main(args, io: io)
        let actual = ["stdout": normalize(out.text), "stderr": normalize(err.text), "exit": "\(code)\n"]
        for (file, text) in actual.sorted(by: { $0.key < $1.key }) {
            let url = dir.appendingPathComponent(file)
            if ProcessInfo.processInfo.environment["CONFORM_RECORD_GOLDENS"] == "1" {
                try Data(text.utf8).write(to: url)
                continue
            }
            guard let expected = FileManager.default.contents(atPath: url.path) else {
                Issue.record("case \(name): missing \(file); run with CONFORM_RECORD_GOLDENS=1 to record it")
                continue
            }
            #expect(text == String(decoding: expected, as: UTF8.self), "case \(name): \(file) differs")
        }
    }

    /// Times vary from run to run, and the commit from build to build; replace them.
    func normalize(_ text: String) -> String {
        text.replacingOccurrences(of: #"in \d+\.\d+ s"#, with: "in <time> s", options: .regularExpression)
            .replacingOccurrences(of: #"\(commit [0-9a-z-]+\)"#, with: "(commit <commit>)", options: .regularExpression)
    }
}
