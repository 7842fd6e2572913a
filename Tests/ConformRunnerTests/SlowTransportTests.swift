import ConformCore
import ConformReport
import ConformRunner
import Foundation
import Synchronization
import Testing

/// A slow transport or a busy machine must not change a verdict.
@Suite struct SlowTransportTests {
    /// Reads the implementation's state when a request arrives and answers `latency` later: `{"ready": true}` once
    /// `readyAfter` has passed since the transport was made (before the run, so the effect never comes later than
    /// the step's window, however late a loaded machine starts the first attempt).
    final class LateEffect: Transport {
        let latency: Duration
        let readyAfter: Duration
        private let start = ContinuousClock.now

        init(latency: Duration, readyAfter: Duration) {
            self.latency = latency
            self.readyAfter = readyAfter
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let ready = ContinuousClock.now - start >= readyAfter
            try await Task.sleep(for: latency)
            return HTTPResponse(
                status: HTTPStatus(200), headerFields: ["Content-Type": "application/json"],
                body: Data(#"{"ready":\#(ready)}"#.utf8))
        }
    }

    @Test func anEffectThatAppearsWithinTheWindowIsSeenHoweverSlowTheExchanges() async throws {
        // Attempts start at 0 and 0.8 s and see nothing; the effect appears at 1 s, when the window closes. The step
        // still passes: the window closes only with an attempt begun after it (the third, on an idle machine).
        let s = try suite(
            """
            suite: late
            title: an effect at the end of the window
            steps:
              - name: eventually ready
                request: {url: "/state"}
                expect: {status: 200, json: {ready: true}}
                eventually: {timeout: 1s, interval: 200ms}
            """)
        let transport = LateEffect(latency: .milliseconds(600), readyAfter: .seconds(1))
        let result = await Runner(transport: transport).run(RunPlan(suites: [s], targetDescription: "late"))
        // Whatever the machine's speed, the last attempt begins after the window and sees the effect. (On an idle
        // machine that is the third; on one so loaded that the first attempt starts a second late, the first.)
        #expect(result.steps[0].verdict == .pass, "\(result.steps[0].error ?? "")")
    }

    @Test func anEffectThatNeverAppearsStillFailsAfterTheWindow() async throws {
        let s = try suite(
            """
            suite: never
            title: no effect
            steps:
              - name: eventually ready
                request: {url: "/state"}
                expect: {status: 200, json: {ready: true}}
                eventually: {timeout: 500ms, interval: 100ms}
            """)
        let transport = LateEffect(latency: .milliseconds(300), readyAfter: .seconds(3600))
        let result = await Runner(transport: transport).run(RunPlan(suites: [s], targetDescription: "never"))
        #expect(result.steps[0].verdict == .fail)
        #expect(result.steps[0].error?.contains("still failing after") == true)
    }

    /// Counts how many exchanges are under way at once.
    final class Counting: Transport {
        private let counts = Mutex<(now: Int, most: Int)>((0, 0))
        var most: Int { counts.withLock { $0.most } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            counts.withLock { counts in
                counts.now += 1
                counts.most = max(counts.most, counts.now)
            }
            try await Task.sleep(for: .milliseconds(30))
            counts.withLock { $0.now -= 1 }
            return HTTPResponse(status: HTTPStatus(200))
        }
    }

    @Test(arguments: [1, 3])
    func jobsBoundTheSuitesRunAtOnce(jobs: Int) async throws {
        let suites = try (1...6).map { index in
            try suite("suite: s\(index)\ntitle: one flow\nsteps:\n  - name: x\n    request: {url: \"/x\"}\n")
        }
        let transport = Counting()
        let result = await Runner(transport: transport).run(
            RunPlan(suites: suites, maxConcurrentSuites: jobs, targetDescription: "counting"))
        #expect(result.exitCode == 0)
        #expect(transport.most <= jobs)
        #expect(transport.most >= 1)
    }

    @Test func byDefaultEverySuiteRunsAtOnce() async throws {
        let suites = try (1...6).map { index in
            try suite("suite: s\(index)\ntitle: one flow\nsteps:\n  - name: x\n    request: {url: \"/x\"}\n")
        }
        let transport = Counting()
        _ = await Runner(transport: transport).run(RunPlan(suites: suites, targetDescription: "counting"))
        #expect(transport.most > 1)
    }
}
