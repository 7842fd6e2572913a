import ConformCLI
import ConformCore
import ConformReport
import ConformServer
import ConformTestSupport
import Foundation
import Synchronization
import Testing

/// `run`, `replay` and `diff` behind a gateway that answers a 503 page before the implementation is up: without
/// `--retry` nothing is judged (could not run, never a difference); with it the exchange is sent again, passes, and
/// every report counts the retry.
@Suite struct GatewayRetryCommandTests {
    /// Answers its first `failures` requests with a gateway's 503 page (or `failure`), then `{"ok":true}`.
    final class Gateway: HTTPHandler {
        let failures: Int
        let failure: HTTPResponse
        let served = Atomic<Int>(0)

        init(failures: Int, failure: HTTPResponse? = nil) {
            self.failures = failures
            var page = HTTPResponse(
                status: HTTPStatus(503), body: Data("<html><body>Service Unavailable</body></html>".utf8))
            page.headerFields["Content-Type"] = "text/html"
            self.failure = failure ?? page
        }

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            if served.add(1, ordering: .relaxed).newValue <= failures { return failure }
            return .json(200, ["ok": true])
        }
    }

    static let suite = """
        suite: gw
        title: behind a gateway
        steps:
          - name: ask
            request: {url: "{{ mobile }}/ok"}
            expect: {status: 200, json: {ok: true}}
        """

    static let recording =
        #"{"seq":1,"flow":"f1","upstream":"mobile","startedAt":"2026-11-29T12:42:27.813Z","durationMs":0.1,"#
        + #""request":{"method":"GET","url":"http://mobile.conform.invalid/ok","headers":[]},"#
        + #""response":{"status":200,"headers":[["Content-Type","application/json"]],"body":"{\"ok\":true}"}}"#
        + "\n"

    func serve(_ gateway: Gateway) throws -> HTTPServer {
        let server = try HTTPServer(handler: gateway)
        try server.start()
        return server
    }

    @Test func runRetriesAGatewayPageAndEveryReportCountsIt() async throws {
        let scratch = try Scratch("gwrun")
        let suite = scratch.path("gw.yaml")
        try Self.suite.write(toFile: suite, atomically: true, encoding: .utf8)
        let down = Gateway(failures: 1)
        let server = try serve(down)
        defer { server.stop() }
        let without = await conformInProcess(["run", suite, "--target", server.baseURL])
        #expect(without.code == 2, "\(without.out)")
        #expect(without.out.contains("gateway unavailable: 503 Service Unavailable with a 'text/html' body"))
        #expect(without.out.hasSuffix("Result: COULD NOT RUN\n"))

        let flaky = Gateway(failures: 1)
        let again = try serve(flaky)
        defer { again.stop() }
        let reports = ["json", "junit", "html"].flatMap { ["--report", "\($0):" + scratch.path("report.\($0)")] }
        let with = await conformInProcess(
            ["run", suite, "--target", again.baseURL, "--retry", "1", "--verbose"] + reports)
        #expect(with.code == 0, "\(with.out)")
        #expect(flaky.served.load(ordering: .relaxed) == 2)
        #expect(with.out.contains("✔ main › 1. ask  (retried 1 time)"), "\(with.out)")
        #expect(with.out.contains(", 0 could not run, 1 retry (1 step) in "), "\(with.out)")
        let json = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: scratch.path("report.json"))))
        #expect(json["retries"]?["count"]?.numberValue == 1)
        #expect(json["suites"]?[0]?["steps"]?[0]?["retries"]?.numberValue == 1)
        let junit = try String(contentsOfFile: scratch.path("report.junit"), encoding: .utf8)
        #expect(junit.contains(#"<property name="retries" value="1"/>"#))
        #expect(junit.contains(#"<property name="retriedSteps" value="1"/>"#))
        #expect(junit.contains("<system-out>retried 1 time</system-out>"))
        let html = try String(contentsOfFile: scratch.path("report.html"), encoding: .utf8)
        #expect(html.contains(#"data-retries="1""#))
    }

    @Test func diffOfSuitesCannotJudgeAGatewayPageAndRetriesIt() async throws {
        let scratch = try Scratch("gwdiff")
        let suite = scratch.path("gw.yaml")
        try Self.suite.write(toFile: suite, atomically: true, encoding: .utf8)
        let (a, b) = (Gateway(failures: 1), Gateway(failures: 0))
        let (sa, sb) = (try serve(a), try serve(b))
        defer { [sa, sb].forEach { $0.stop() } }
        let unjudged = await conformInProcess(["diff", "--target", sa.baseURL, "--target", sb.baseURL, suite])
        #expect(unjudged.code == 2, "\(unjudged.out)")
        #expect(
            unjudged.out.contains("cannot judge: A: gateway unavailable: 503 Service Unavailable"), "\(unjudged.out)")
        let a2 = Gateway(failures: 1)
        let sa2 = try serve(a2)
        defer { sa2.stop() }
        let same = await conformInProcess(
            ["diff", "--target", sa2.baseURL, "--target", sb.baseURL, suite, "--retry", "1"])
        #expect(same.code == 0, "\(same.out)")
        #expect(same.out.contains("1 retry (1 step)"), "\(same.out)")
    }

    @Test func moreThanTenRetriesIsAUsageError() async throws {
        for command in [["run"], ["replay", "x.jsonl"], ["diff", "--target", "builtin", "--target", "builtin"]] {
            let refused = await conformInProcess(command + ["--retry", "11"])
            #expect(refused.code == 64, "\(command): \(refused.err)")
            #expect(refused.err.contains("--retry takes 0 to 10, got '11'"), "\(refused.err)")
        }
    }

    @Test func aJSON503IsTheImplementationsAnswerAndNeverRetried() async throws {
        let scratch = try Scratch("gwjson")
        let suite = scratch.path("gw.yaml")
        try Self.suite.write(toFile: suite, atomically: true, encoding: .utf8)
        let busy = Gateway(failures: 1, failure: .json(503, ["requestError": ["serviceException": ["text": "busy"]]]))
        let server = try serve(busy)
        defer { server.stop() }
        let run = await conformInProcess(["run", suite, "--target", server.baseURL, "--retry", "3"])
        #expect(run.code == 1, "\(run.out)")
        #expect(busy.served.load(ordering: .relaxed) == 1)
        #expect(!run.out.contains("retr"), "\(run.out)")
        #expect(run.out.hasSuffix("Result: DOES NOT CONFORM\n"))
    }

    @Test func replayAndDiffCannotJudgeAGatewayPageAndRetryIt() async throws {
        let scratch = try Scratch("gwreplay")
        let trace = scratch.path("trace.jsonl")
        try Self.recording.write(toFile: trace, atomically: true, encoding: .utf8)
        let down = Gateway(failures: 1)
        let server = try serve(down)
        defer { server.stop() }
        let replay = await conformInProcess(["replay", trace, "--target", server.baseURL])
        #expect(replay.code == 2, "\(replay.out)")
        #expect(replay.out.contains("cannot judge: gateway unavailable: 503 Service Unavailable"), "\(replay.out)")
        #expect(replay.out.contains("0 differed"), "\(replay.out)")

        let flaky = Gateway(failures: 1)
        let again = try serve(flaky)
        defer { again.stop() }
        let report = scratch.path("replay.json")
        let retried = await conformInProcess(
            ["replay", trace, "--target", again.baseURL, "--retry", "2", "--report", "json:" + report])
        #expect(retried.code == 0, "\(retried.out)")
        #expect(retried.out.contains("1 retry (1 step)"), "\(retried.out)")
        let json = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(json["retries"]?["count"]?.numberValue == 1)

        // diff: a gateway's page on one side is not a difference, it cannot be judged; retried, the sides agree.
        let a = Gateway(failures: 0)
        let b = Gateway(failures: 1)
        let (sa, sb) = (try serve(a), try serve(b))
        defer { [sa, sb].forEach { $0.stop() } }
        let differs = await conformInProcess(["diff", "--target", sa.baseURL, "--target", sb.baseURL, trace])
        #expect(differs.code == 2, "\(differs.out)")
        #expect(
            differs.out.contains("cannot judge: gateway unavailable on B: 503 Service Unavailable"), "\(differs.out)")
        let b2 = Gateway(failures: 1)
        let sb2 = try serve(b2)
        defer { sb2.stop() }
        let same = await conformInProcess(
            ["diff", "--target", sa.baseURL, "--target", sb2.baseURL, trace, "--retry", "1"])
        #expect(same.code == 0, "\(same.out)")
        #expect(same.out.contains("1 retry (1 step)"), "\(same.out)")
    }
}
