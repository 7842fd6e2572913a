import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import Foundation
import Testing

/// Why a step did not pass comes as data (a kind and fields), and as the same one line of text as before.
@Suite struct StepErrorTests {
    func run(_ suites: [Suite], transport: any Transport = InProcessTransport(FakeService())) async -> RunResult {
        await Runner(transport: transport).run(
            RunPlan(suites: suites, exchangeTimeout: .seconds(5), targetDescription: "fake"))
    }

    @Test func noResponseAndTheStepsItBlocks() async throws {
        let s = try suite(
            """
            suite: e1
            title: unreachable
            steps:
              - name: register
                request: {method: POST, url: "/reg"}
              - name: read back
                request: {url: "/reg/x"}
            """)
        let refused = TransportError(.connectionRefused, "http://127.0.0.1:1/reg")
        let result = await run([s], transport: FailingTransport(error: refused))
        let first = result.steps[0].errors
        #expect(first.map(\.kind) == [.noResponse])
        #expect(first.first?.fields["cause"] == "\(refused)")
        #expect(result.steps[0].error == "no response: \(refused)")
        let second = result.steps[1].errors
        #expect(second.map(\.kind) == [.skipped])
        #expect(second.first?.fields["blockedBy"] == "step 1 'register' of flow 'main' did not pass")
        #expect(result.steps[1].error == "skipped: step 1 'register' of flow 'main' did not pass")
    }

    @Test func aWaitThatCannotEndWellNamesItsEvent() async throws {
        let s = try suite(
            """
            suite: e2
            title: wait
            flows:
              phone:
                - name: register at a path that is not there, so the event is never announced
                  request: {method: POST, url: "/missing"}
                  expect: {status: 200}
                  emits: registrationUpdated
              tablet:
                - wait: {event: registrationUpdated, flow: phone, timeout: 60s}
            """)
        let result = await run([s])
        let wait = try #require(result.steps.first { $0.flow == "tablet" })
        // Its emitter failed: the wait is skipped, naming the event and the flow that was to emit it.
        #expect(wait.errors.map(\.kind) == [.skipped])
        #expect(wait.errors.first?.fields["event"] == "registrationUpdated")
        #expect(wait.errors.first?.fields["emitter"] == "phone")
    }

    @Test func anEventuallyStepThatRunsOutSaysHowOften() async throws {
        let s = try suite(
            """
            suite: e3
            title: eventually
            steps:
              - name: never
                request: {url: "/nope"}
                expect: {status: 200}
                eventually: {timeout: 100ms, interval: 20ms}
            """)
        let step = await run([s]).steps[0]
        #expect(step.errors.map(\.kind) == [.stillFailing])
        #expect(step.errors.first?.fields["attempts"] == "\(step.attempts)")
        #expect(step.errors.first?.fields["window"] == "100ms")
        #expect(step.error == "still failing after \(step.attempts) attempt\(step.attempts == 1 ? "" : "s") in 100ms")
    }

    @Test func aWindowThatDoesNotRenderPointsIntoTheSuite() async throws {
        let s = try suite(
            """
            suite: e4
            title: window
            vars: {asyncWindow: soon}
            steps:
              - name: windowed
                request: {url: "/reg"}
                eventually: {timeout: "{{ asyncWindow }}", interval: 20ms}
            """)
        let step = await run([s]).steps[0]
        #expect(step.verdict == .error)
        #expect(step.errors.map(\.kind) == [.badWindow])
        #expect(step.errors.first?.file == s.file)
        #expect(step.errors.first?.mark != nil)
    }

    @Test func textSetByACallerIsOnePartOfKindText() {
        var step = StepResult(
            suiteID: "s", flow: "main", index: 0, name: "x", file: "f.yaml", mark: .init(line: 1, column: 1),
            spec: SpecReference(), verdict: .error, error: "from elsewhere")
        #expect(step.errors == [StepError(.text, "from elsewhere")])
        step.errors.append(StepError(.stillFailing, "still failing after 2 attempts in 1s"))
        #expect(step.error == "from elsewhere; still failing after 2 attempts in 1s")
        step.error = nil
        #expect(step.errors.isEmpty)
    }

    /// A step error at a place has a diagnostic's shape: the same place, what is wrong and how to fix it, and its
    /// message says them the one way.
    @Test func aStepErrorAtAPlaceHasTheShapeOfADiagnostic() {
        let error = StepError(
            .outsideTarget, at: "s.yaml", SourceMark(line: 4, column: 9), reason: "not sent: elsewhere",
            help: "pass --allow-host x to allow it", fields: ["url": "http://x/"])
        let diagnostic = Diagnostic(
            .suiteOutsideTarget, file: "s.yaml", mark: SourceMark(line: 4, column: 9), message: "not sent: elsewhere",
            help: "pass --allow-host x to allow it")
        #expect(error.place == diagnostic.place && error.place == "s.yaml:4:9")
        #expect(error.reason == diagnostic.reason && error.help == diagnostic.help)
        #expect(error.kindName == "outsideTarget" && diagnostic.kindName == "suite.outside-target")
        #expect(error.message == "s.yaml:4:9: not sent: elsewhere; pass --allow-host x to allow it")
        #expect(StepError(.note, "a note").place == nil && StepError(.note, "a note").reason == "a note")
    }

    /// A variable whose default does not render is the setup error of every step, named at the variable.
    @Test func aVariableThatDoesNotRenderIsASetupErrorAtTheVariable() async throws {
        let suite = try suite(
            """
            suite: broken-var
            title: a variable whose default calls a function with a bad argument
            vars: {n: "{{ digits 99 }}"}
            steps:
              - name: a
                request: {url: "{{ mobile }}/x"}
                expect: {status: 200}
            """, file: "broken.yaml")
        let mark = try #require(suite.variables.first?.mark)
        #expect(mark == SourceMark(line: 3, column: 8))
        let step = try #require(await run([suite]).suites.first?.steps.first)
        let error = try #require(step.errors.first)
        #expect(error.kind == .setup)
        #expect(error.place == "broken.yaml:3:8")
        #expect(error.message.hasPrefix("broken.yaml:3:8: variable 'n': "))
        #expect(error.fields["cause"] == error.message)
    }
}
