import ConformTestSupport
import Foundation
import Testing

/// Runs the built `conform` binary over each case directory, as a user would: `args`, then the expected `stdout`,
/// `stderr` and `exit`. The case list is read strictly: a directory that cannot be listed, a case without `args`
/// or a missing expected file fails, so no case passes by not running.
@Suite struct CLICaseTests {
    static let casesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Cases")

    /// The case names; an unreadable directory gives none, which ``theCasesAreThere()`` fails on.
    static var caseNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: casesDirectory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    /// The cases are listed and each has its arguments: zero cases is a failure, not a pass.
    @Test func theCasesAreThere() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.casesDirectory.path).filter {
            !$0.hasPrefix(".")
        }
        #expect(names.count >= 29, "\(names)")
        for name in names {
            #expect(
                FileManager.default.fileExists(atPath: Self.casesDirectory.appendingPathComponent("\(name)/args").path),
                "case \(name) has no args file")
        }
    }

    @Test(arguments: caseNames)
    func cliCase(_ name: String) async throws {
        let dir = Self.casesDirectory.appendingPathComponent(name)
        let argsText = try String(contentsOf: dir.appendingPathComponent("args"), encoding: .utf8)
        let args = argsText.split(whereSeparator: \.isWhitespace).map(String.init)
        let home = try Scratch("home")
        let run = try await ChildProcess.output(
            TestPaths.conformBinary.path, args, environment: ["PATH": "/usr/bin:/bin", "HOME": home.url.path],
            directory: dir, separateStandardError: true)
        let actual = [
            "stdout": normalize(run.output), "stderr": normalize(run.errorOutput), "exit": "\(run.status)\n",
        ]
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
