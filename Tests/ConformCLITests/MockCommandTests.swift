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

    @Test func aClientThatLeavesStepsOutIsReported() async throws {
        let out = MemorySink()
        let mock = Task {
            await ConformCommand.main(
                // The client never completes the suite, so the mock ends at its deadline: long enough for the
                // client's requests to arrive on a busy machine.
                ["conform", "mock", "suites/01-registration.yaml", "--until-done", "--timeout", "15"],
                io: io(out, MemorySink()))
        }
        var url: String?
        for _ in 0..<400 where url == nil {
            try await Task.sleep(for: .milliseconds(25))
            url = out.text.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("http://") }.map(String.init)
        }
        let base = try #require(url)
        // A different scenario against this mock: its requests do not follow the registration suite.
        _ = await ConformCommand.main(
            ["conform", "run", "suites/03-logout.yaml", "--target", base], io: io(MemorySink(), MemorySink()))
        #expect(await mock.value == 1)
        // The requests no step accepted are steps of the group `unmatched`; the steps no request reached fail.
        #expect(out.text.contains("✘ unmatched  Requests no pending step accepted\n"), "\(out.text)")
        #expect(out.text.contains("✘ registration  "), "\(out.text)")
        #expect(out.text.contains("        no request reached this step\n"), "\(out.text)")
        #expect(out.text.hasSuffix("Result: the client did not follow the suite\n"), "\(out.text)")
    }
}
