import ConformCore
import ConformReport
import ConformRunner
import Foundation
import Synchronization
import Testing

/// A device mailbox whose messages show up on a schedule of polls, as a backend that delivers late would.
final class ScheduledMailbox: HTTPHandler {
    /// Text → the poll (1-based) from which it is visible.
    let schedule: [String: Int]
    let polls = Mutex(0)

    init(_ schedule: [String: Int]) { self.schedule = schedule }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let n = polls.withLock { n -> Int in
            n += 1
            return n
        }
        let visible = schedule.filter { $0.value <= n }.keys.sorted().map { text -> JSONValue in ["body": .string(text)]
        }
        return .json(200, ["payloads": .array(visible)])
    }
}

@Suite struct ControlTests {
    /// The window is long: a step that passes ends as soon as its control arrives (by attempt count, not time), so a
    /// long window costs nothing and holds however busy the machine is.
    func controlSuite(window: String = "60s") throws -> Suite {
        try suite(
            """
            suite: control
            title: absence after a control
            vars: {window: \(window)}
            steps:
              - name: the device never gets the forbidden push, judged once the control has arrived
                request: {method: POST, url: "/messages"}
                until: {json: {payloads: {$contains: [{body: control}]}}}
                expect:
                  status: 200
                  json: {payloads: {$not: {$contains: [{body: forbidden}]}}}
                eventually: {timeout: "{{ window }}", interval: 10ms}
            """)
    }

    func run(_ s: Suite, _ mailbox: ScheduledMailbox) async -> RunResult {
        await Runner(transport: InProcessTransport(mailbox)).run(
            RunPlan(suites: [s], exchangeTimeout: .seconds(5), targetDescription: "mailbox"))
    }

    @Test func absenceHoldsOnceTheControlArrives() async throws {
        let result = await run(try controlSuite(), ScheduledMailbox(["control": 3]))
        #expect(result.steps[0].verdict == .pass)
        #expect(result.steps[0].attempts == 3)
        #expect(result.exitCode == 0)
    }

    @Test func aForbiddenMessageSeenBeforeTheControlFails() async throws {
        // The forbidden push shows up on poll 2, the control on poll 4; a slow backend cannot hide it.
        let result = await run(try controlSuite(), ScheduledMailbox(["forbidden": 2, "control": 4]))
        let step = result.steps[0]
        #expect(step.verdict == .fail)
        #expect(step.attempts == 2)
        #expect(step.failures.first?.mismatches.first?.path == "$.payloads")
        #expect(result.exitCode == 1)
    }

    @Test func aForbiddenMessageArrivingWithTheControlFails() async throws {
        let result = await run(try controlSuite(), ScheduledMailbox(["forbidden": 2, "control": 2]))
        #expect(result.steps[0].verdict == .fail)
    }

    @Test func aControlThatNeverArrivesFailsInsteadOfPassing() async throws {
        let result = await run(try controlSuite(window: "100ms"), ScheduledMailbox([:]))
        let step = result.steps[0]
        #expect(step.verdict == .fail)
        #expect(step.attempts > 1)
        #expect(step.error?.contains("the control ('until') did not arrive after") == true)
        #expect(step.failures.contains { $0.severity == .must && $0.mismatches.first?.path == "$.payloads" })
    }

    @Test func aWindowThatIsNotADurationIsAnErrorAtItsLine() async throws {
        let result = await run(try controlSuite(window: "soon"), ScheduledMailbox(["control": 1]))
        let step = result.steps[0]
        #expect(step.verdict == .error)
        #expect(step.error?.hasPrefix("test.yaml:11:17: the eventually window '{{ window }}' is 'soon'") == true)
        #expect(result.exitCode == 2)
    }

    @Test func anInfiniteWindowIsRefused() async throws {
        let result = await run(try controlSuite(window: ".inf"), ScheduledMailbox(["control": 1]))
        #expect(result.steps[0].verdict == .error)
    }

    @Test func theWindowComesFromTheCommandLine() async throws {
        let result = await Runner(transport: InProcessTransport(ScheduledMailbox([:]))).run(
            RunPlan(
                suites: [try controlSuite()], overrides: ["window": "50ms"], exchangeTimeout: .seconds(5),
                targetDescription: "mailbox"))
        #expect(result.steps[0].verdict == .fail)
        #expect(result.steps[0].duration < 1.5)
        #expect(result.steps[0].error?.contains("in 50ms") == true)
    }

    @Test func positiveEventuallyRetriesUntilTheMessageArrives() async throws {
        let s = try suite(
            """
            suite: eventually
            title: delivery is eventual
            steps:
              - name: the device receives the push
                request: {method: POST, url: "/messages"}
                expect: {status: 200, json: {payloads: {$contains: [{body: hello}]}}}
                eventually: {timeout: 60s, interval: 10ms}
            """)
        let result = await run(s, ScheduledMailbox(["hello": 4]))
        #expect(result.steps[0].verdict == .pass)
        #expect(result.steps[0].attempts == 4)
    }

    @Test func theMockAnswersWithTheControlAndWithoutTheForbiddenMessage() throws {
        let s = try controlSuite()
        guard case .exchange(let exchange) = s.flows[0].steps[0].action else {
            Issue.record("not an exchange")
            return
        }
        let response = exchange.exampleResponse(in: TemplateScope(values: [:]))
        let json = try response.jsonBody.get()
        #expect(json == ["payloads": [["body": "control"]]])
        #expect(exchange.failures(for: response, in: TemplateScope(values: [:])).isEmpty)
    }
}

/// Fails the first `failures` exchanges at the transport, then answers through `handler`.
final class DroppingTransport: Transport {
    let handler: any HTTPHandler
    let remaining: Mutex<Int>

    init(_ handler: any HTTPHandler, failures: Int) {
        self.handler = handler
        self.remaining = Mutex(failures)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let drop = remaining.withLock { n -> Bool in
            defer { n -= 1 }
            return n > 0
        }
        if drop { throw TransportError(.timeout, "dropped") }
        return handler.handle(request)
    }
}

@Suite struct ControlRetryTests {
    @Test func aLostResponseIsRetriedUntilTheControlArrives() async throws {
        let s = try ControlTests().controlSuite()
        let transport = DroppingTransport(ScheduledMailbox(["control": 1]), failures: 2)
        let result = await Runner(transport: transport).run(
            RunPlan(suites: [s], exchangeTimeout: .seconds(5), targetDescription: "dropping"))
        #expect(result.steps[0].verdict == .pass, "\(result.steps[0].error ?? "")")
        #expect(result.steps[0].attempts == 3)
    }
}
