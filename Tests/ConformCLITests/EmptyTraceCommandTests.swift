import ConformTestSupport
import Foundation
import Testing

/// Nothing judged is no pass: an empty recording (an app that never reached the recorder) or an empty HAR is
/// CANNOT JUDGE (exit 2) for `check`, `replay` and `diff`, and no report of it says it conforms.
@Suite struct EmptyTraceCommandTests {
    /// A recording as `conform record` leaves it when no request came: `meta.json` and an empty `exchanges.jsonl`.
    func emptyRecording(_ scratch: Scratch) throws -> String {
        let dir = scratch.path("empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: TestPaths.root.path + "/recordings/personalization-flow/meta.json", toPath: dir + "/meta.json")
        try Data().write(to: URL(fileURLWithPath: dir + "/exchanges.jsonl"))
        return dir
    }

    func emptyHAR(_ scratch: Scratch) throws -> String {
        let file = scratch.path("empty.har")
        try Data(#"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[]}}"#.utf8).write(
            to: URL(fileURLWithPath: file))
        return file
    }

    @Test func checkReplayAndDiffCannotJudgeNothing() async throws {
        let scratch = try Scratch()
        for trace in [try emptyRecording(scratch), try emptyHAR(scratch)] {
            let report = scratch.path("r-\(UUID().uuidString).json")
            let check = await conformInProcess(["check", trace, "--report", "json:\(report)"])
            #expect(check.code == 2, "check \(trace): \(check.out)\(check.err)")
            #expect(check.out.contains("Checked 0 exchanges"))
            #expect(check.out.contains("Result: CANNOT JUDGE"))
            let json = try String(contentsOfFile: report, encoding: .utf8)
            #expect(json.contains(#""result" : "could not run""#) || json.contains(#""result": "could not run""#))
            let replay = await conformInProcess(["replay", trace])
            #expect(replay.code == 2, "replay \(trace): \(replay.out)\(replay.err)")
            #expect(replay.out.contains("Result: CANNOT JUDGE"))
        }
        let diff = await conformInProcess([
            "diff", "--target", "builtin", "--target", "builtin", try emptyRecording(scratch),
        ])
        #expect(diff.code == 2, "\(diff.out)\(diff.err)")
        #expect(diff.out.hasSuffix("Result: CANNOT JUDGE\n"), "\(diff.out)")
    }
}
