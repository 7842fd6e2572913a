import ConformCLI
import ConformReport
import ConformRunner
import ConformTestSupport
import Foundation
import Testing

/// `conform mock SUITE --until-done` played by `conform run` against it: the two sides of one suite agree.
@Suite struct MockCommandTests {
    static let root = TestPaths.root

    func io(_ out: MemorySink, _ err: MemorySink) -> CommandIO {
        CommandIO(out: out, err: err, color: false, environment: [:], currentDirectory: Self.root.path)
    }

    @Test func runConformsToTheMockOfASuiteAndTheMockReportsEveryStepPlayed() async throws {
        let mockOut = MemorySink()
        let mockErr = MemorySink()
        let mock = Task {
            await ConformCommand.main(
                ["conform", "mock", "suites/02-login.yaml", "--until-done", "--timeout", "60"], io: io(mockOut, mockErr)
            )
        }
        var url: String?
        for _ in 0..<400 where url == nil {
            try await Task.sleep(for: .milliseconds(25))
            url = mockOut.text.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("http://") }.map(String.init)
        }
        let base = try #require(url, "the mock printed no address: \(mockOut.text)\(mockErr.text)")
        let runOut = MemorySink()
        let code = await ConformCommand.main(
            ["conform", "run", "suites/02-login.yaml", "--target", base], io: io(runOut, MemorySink()))
        #expect(code == 0, "\(runOut.text)")
        #expect(await mock.value == 0, "\(mockOut.text)")
        #expect(mockOut.text.hasSuffix("Result: the client followed the suite\n"), "\(mockOut.text)")
    }

    /// The client never completes the suite, so the session is ended with Ctrl-C once the client's run is over.
    @Test func aClientThatLeavesStepsOutIsReported() async throws {
        let scratch = try Scratch()
        let mock = try await offThePool {
            try ConformProcess(
                ["mock", "suites/01-registration.yaml", "--port", "0"], scratch: scratch, banner: "Mocking ")
        }
        // A different scenario against this mock: its requests do not follow the registration suite.
        let run = try await ChildProcess.output(
            Self.root.path + "/.build/debug/conform", ["run", "suites/03-logout.yaml", "--target", mock.baseURL],
            directory: Self.root)
        let ended = try await offThePool { try mock.interrupt() }
        let out = ended.out
        #expect(ended.code == 1, "\(out)\n--- run:\n\(run.output)")
        // The requests no step accepted are steps of the group `unmatched`; the steps no request reached fail.
        #expect(out.contains("✘ unmatched  Requests no pending step accepted\n"), "\(out)")
        #expect(out.contains("✘ registration  "), "\(out)")
        #expect(out.contains("        no request reached this step\n"), "\(out)")
        #expect(out.hasSuffix("Result: the client did not follow the suite\n"), "\(out)")
    }
}
