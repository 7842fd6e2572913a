import ConformCore
import ConformRunner
import Foundation
import Testing

/// The runner against the mock with random delays before each exchange, so flows interleave differently.
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
        for suite in try SuiteMockTests.bundledSuites() {
            let mock = SuiteMock(suites: [suite], functions: RunnerFunctions.all)
            let plan = RunPlan(
                suites: [suite], targetDefaults: ["mobile": "", "backend": ""], functions: RunnerFunctions.all)
            let result = await Runner(transport: Jittery(mock: mock)).run(plan)
            let failing = result.steps.filter { $0.verdict != .pass }.map {
                "\(suite.id) › \($0.flow) › \($0.index + 1). \($0.name)"
            }
            #expect(failing.isEmpty, "round \(round): \(failing)")
            #expect(mock.report().complete, "round \(round): \(suite.id) \(mock.report().pending)")
        }
    }
}
