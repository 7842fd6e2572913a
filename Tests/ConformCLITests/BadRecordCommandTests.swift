import ConformTestSupport
import Foundation
import Testing

/// One bad record does not poison a trace: `check`, `replay`, `export` and `import` skip it, name it as a warning
/// and read the rest; what the skipped record held cannot be judged, so `check` and `replay` say CANNOT JUDGE.
@Suite struct BadRecordCommandTests {
    static let sample = TestPaths.root.path + "/recordings/personalization-flow/exchanges.jsonl"

    /// The sample recording with a request the recorder should never have written spliced in after line 3.
    func poisoned(_ scratch: Scratch) throws -> String {
        var lines = try String(contentsOfFile: Self.sample, encoding: .utf8).split(separator: "\n").map(String.init)
        let bad =
            #"{"seq":1000,"flow":"f","upstream":"mobile","startedAt":"2026-11-29T12:42:27.900Z","durationMs":1,"#
            + #""request":{"method":"G ET","url":"/mobile/1/x\u001b]0;pwned\u0007"},"response":{"status":200}}"#
        lines.insert(bad, at: 3)
        let path = scratch.path("poisoned.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func checkReadsTheRestAndCannotJudge() async throws {
        let scratch = try Scratch()
        let file = try poisoned(scratch)
        let result = await conformInProcess(["check", file])
        #expect(result.code == 2, "\(result.out)\(result.err)")
        #expect(result.err.contains("poisoned.jsonl:4:"))
        #expect(result.err.contains("this line is skipped"))
        #expect(result.out.contains("1 unreadable record skipped"))
        #expect(result.out.contains("Result: CANNOT JUDGE"))
    }

    @Test func replayReplaysTheRestAndCannotJudge() async throws {
        let scratch = try Scratch()
        let file = try poisoned(scratch)
        // In process, beside hundreds of other tests: a long timeout, so a starved thread is not read as the
        // reference failing to answer.
        let result = await conformInProcess([
            "replay", file, "--noise", "recordings/personalization-flow/noise.yaml", "--timeout", "300",
        ])
        #expect(result.code == 2, "\(result.out)\(result.err)")
        #expect(result.out.contains("1 unreadable record skipped"))
        #expect(result.out.contains("Result: CANNOT JUDGE"))
    }

    @Test func exportWritesTheRest() async throws {
        let scratch = try Scratch()
        let file = try poisoned(scratch)
        let har = scratch.path("out.har")
        let result = await conformInProcess(["export", file, "--out", har])
        #expect(result.code == 0, "\(result.out)\(result.err)")
        #expect(result.err.contains("this line is skipped"))
        let sampleLines = try String(contentsOfFile: Self.sample, encoding: .utf8).split(separator: "\n").count
        let text = try String(contentsOfFile: har, encoding: .utf8)
        #expect(text.components(separatedBy: "\"startedDateTime\"").count - 1 == sampleLines)
    }
}
