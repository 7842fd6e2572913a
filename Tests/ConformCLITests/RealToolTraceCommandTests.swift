import ConformCLI
import ConformRunner
import ConformTestSupport
import Foundation
import Testing

/// `check` and `replay` on real-tool HARs: read by content whatever their names, and what the trace lacks makes
/// the verdict "cannot judge" (exit 2), never a false pass or a false violation.
@Suite struct RealToolTraceCommandTests {
    static let root = TestPaths.root.path
    static let fixtures = "Tests/ConformTrafficTests/Fixtures/real/"

    func conform(_ args: [String]) async -> (code: Int32, out: String, err: String) {
        await conformInProcess(args, in: Self.root)
    }

    @Test(arguments: [
        "playwright-embed.json", "playwright-omit.har", "playwright-attach.zip", "playwright-embed.har.gz",
    ])
    func checkCannotJudgeWhatTheTraceLacks(_ name: String) async {
        let result = await conform(["check", Self.fixtures + name])
        #expect(result.code == 2, "\(result.out)\(result.err)")
        #expect(result.out.contains("cannot judge: response: none, the request failed (net::ERR_CONNECTION_REFUSED)"))
        #expect(result.out.hasSuffix("Result: CANNOT JUDGE\n"))
    }

    @Test func replayOfAHARWithoutBodiesCannotJudge() async {
        let result = await conform(["replay", Self.fixtures + "playwright-omit.har", "--quiet"])
        #expect(result.code == 2, "\(result.out)\(result.err)")
        #expect(result.out.contains("4 could not be judged"))
        #expect(result.out.hasSuffix("Result: CANNOT JUDGE\n"))
    }

    /// `diff` judges the same exchanges as `replay`: one neither side could be sent whole is not "the same".
    @Test func diffOfAHARWithoutBodiesCannotJudge() async {
        let result = await conform([
            "diff", "--target", "builtin", "--target", "builtin", Self.fixtures + "playwright-omit.har",
        ])
        #expect(result.code == 2, "\(result.out)\(result.err)")
        #expect(result.out.contains("0 exchanges, 0 the same, 0 different, 4 could not be judged\n"))
        #expect(result.out.contains("0 passed, 0 failed, 4 could not be judged"))
        #expect(result.out.hasSuffix("Result: CANNOT JUDGE\n"))
    }

    @Test func aCompleteTraceIsJudged() async {
        let result = await conform(["check", Self.fixtures + "mitmproxy.zhar"])
        #expect(result.code == 1, "\(result.out)\(result.err)")
        #expect(result.out.contains(" › registration-header: "), "\(result.out)")
    }
}
