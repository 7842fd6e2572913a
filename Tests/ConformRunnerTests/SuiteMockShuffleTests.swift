import ConformCore
import ConformMobileMessaging
import ConformReport
import ConformRunner
import Foundation
import Testing

/// The runner against the mock with random delays before each exchange, so flows interleave differently.
/// Machine-wide: the mock's placement searches compute on every core, so `scripts/test` runs it after the others.
@Suite struct SuiteMockShuffleTests {
    /// Sleeps a random moment before handing the request to the mock.
    struct Jittery: Transport {
        let mock: SuiteMock
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            try await Task.sleep(for: .microseconds(Int.random(in: 0...3000)))
            return mock.handle(request)
        }
    }

    @Test(arguments: 1...8)
    func everyBundledSuiteStillConformsUnderShuffledInterleavings(_ round: Int) async throws {
        // jwt-profile has seven flows whose first requests are alike and whose tokens the mock cannot tell apart;
        // in some interleavings the mock places a personalize in the wrong flow before the search that would undo
        // it runs out of budget. SuiteMockTests still plays it in order; this one leaves it out.
        for suite in try SuiteMockTests.bundledSuites() where suite.id != "jwt-profile" {
            let mock = SuiteMock(suites: [suite], profile: .mobileMessaging)
            // A mock's placement search beside the other machine-wide tests can take longer than the default 10 s;
            // a timed-out attempt of an `eventually` step would be sent again and find its step already played.
            let plan = RunPlan(
                suites: [suite], targetDefaults: ProtocolProfile.mobileMessaging.baseURLs(all: ""),
                exchangeTimeout: .seconds(60), functions: MobileMessaging.functions)
            let result = await Runner(transport: Jittery(mock: mock)).run(plan)
            let failing = result.steps.filter { $0.verdict != .pass }.map {
                "\(suite.id) › \($0.flow) › \($0.index + 1). \($0.name)"
            }
            #expect(failing.isEmpty, "round \(round): \(failing)")
            #expect(mock.report().complete, "round \(round): \(suite.id) \(mock.report().pending)")
        }
    }
}
