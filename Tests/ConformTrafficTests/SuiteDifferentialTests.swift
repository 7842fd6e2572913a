import ConformCore
import ConformDiagnostics
import ConformMobileMessaging
import ConformReplay
import ConformReport
import Foundation
import Testing

/// Two runs of one suite compared step by step: B's generated values are read as A's, a real difference fails the
/// step with where it is, and a step neither side answered, or one a gateway answered, is not judged.
@Suite struct SuiteDifferentialTests {
    let group = ResultGroup(kind: .suite, id: "s", title: "one suite", file: "s.yaml")

    func step(_ index: Int, _ verdict: Verdict, url: String, body: String?, error: String? = nil) -> StepResult {
        StepResult(
            suiteID: "s", flow: "main", index: index, name: "step \(index)", file: "s.yaml",
            mark: SourceMark(line: index + 1, column: 3), spec: SpecReference(), verdict: verdict,
            request: HTTPRequest(method: .post, url: url),
            response: body.map { HTTPResponse(status: 200, body: Data($0.utf8)) }, error: error)
    }

    func run(_ steps: [StepResult]) -> RunResult {
        RunResult(suites: [SuiteResult(group: group, steps: steps, duration: 0)], duration: 0, target: "t")
    }

    var differential: SuiteDifferential {
        SuiteDifferential(noise: NoiseRules(), minted: ProtocolProfile.mobileMessaging.replay.minted)
    }

    @Test func generatedValuesOfBAreReadAsThoseOfAAndARealDifferenceFails() {
        let a = run([
            step(0, .pass, url: "http://a/mobile/1/appinstance", body: #"{"pushRegId":"reg-a1"}"#),
            step(1, .pass, url: "http://a/mobile/1/appinstance/reg-a1/user", body: #"{"externalUserId":"u-1"}"#),
        ])
        let b = run([
            step(0, .pass, url: "http://b/mobile/1/appinstance", body: #"{"pushRegId":"reg-b7"}"#),
            step(1, .fail, url: "http://b/mobile/1/appinstance/reg-b7/user", body: #"{"externalUserId":"u-2"}"#),
        ])
        let judged = differential.compare(a, b)
        #expect(judged.map(\.0.verdict) == [.pass, .fail])
        #expect(judged.allSatisfy { $0.0.check == .suiteDifference && $0.1 == group })
        let mismatches = judged[1].0.failures.flatMap(\.mismatches).map { "\($0.path): \($0.expected) / \($0.actual)" }
        // B's registration id, in its URL and its body, is read as A's: only the user differs.
        #expect(mismatches == ["verdict: A pass / B fail", #"$.externalUserId: "u-1" / "u-2""#])
        // A step that passed keeps no exchange: nothing differs to show.
        #expect(judged[0].0.request == nil && judged[0].0.response == nil)
    }

    @Test func neitherSideAnsweringOrAGatewayIsNotJudged() {
        let a = run([
            step(0, .error, url: "http://a/x", body: nil, error: "connection refused"),
            step(1, .pass, url: "http://a/y", body: "{}"),
        ])
        var gateway = step(1, .error, url: "http://b/y", body: nil)
        gateway.errors = [StepError(.gatewayUnavailable, "503 from a gateway")]
        let b = run([step(0, .error, url: "http://b/x", body: nil, error: "connection refused"), gateway])
        let judged = differential.compare(a, b).map(\.0)
        #expect(judged.map(\.verdict) == [.skipped, .skipped])
        #expect(judged[0].errors.map(\.message) == ["cannot judge: neither side answered (connection refused)"])
        #expect(judged[1].errors.map(\.message) == ["cannot judge: B: 503 from a gateway"])
    }
}
