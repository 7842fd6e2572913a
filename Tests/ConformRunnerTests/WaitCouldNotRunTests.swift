import ConformCore
import ConformReport
import ConformRunner
import Testing

/// A wait whose emitter could not run is skipped, not failed: nothing was learnt about the implementation.
@Suite struct WaitCouldNotRunTests {
    /// Answers from the fake service, except `/down`, which the adapter could not deliver.
    struct PartlyGone: Transport {
        let service = InProcessTransport(FakeService())
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if request.url.hasSuffix("/down") { throw TransportError(.adapterGone, "the adapter exited with status 1") }
            return try await service.send(request)
        }
    }

    func run(_ s: Suite) async -> RunResult {
        await Runner(transport: PartlyGone()).run(
            RunPlan(suites: [s], exchangeTimeout: .seconds(5), targetDescription: "adapter"))
    }

    @Test func aWaitForAFlowThatCouldNotRunIsSkippedAndSoIsTheRestOfItsFlow() async throws {
        let s = try suite(
            """
            suite: gone
            title: the emitter could not run
            flows:
              phone:
                - name: register through an adapter that is gone
                  request: {method: POST, url: "/down"}
                  emits: registrationUpdated
              tablet:
                - wait: {event: registrationUpdated, flow: phone, timeout: 60s}
                - name: read the phone's registration
                  request: {url: "/reg/x"}
                  emits: tabletDone
              watch:
                - wait: {event: tabletDone, flow: tablet, timeout: 60s}
              any:
                - wait: {event: tabletDone, timeout: 60s}
            """)
        let result = await run(s)
        let byFlow = Dictionary(grouping: result.steps, by: \.flow)
        #expect(byFlow["phone"]?.map(\.verdict) == [.error])
        #expect(byFlow["tablet"]?.map(\.verdict) == [.skipped, .skipped])
        let wait = try #require(byFlow["tablet"]?.first)
        #expect(
            wait.error
                == "skipped: event 'registrationUpdated' from flow 'phone' will not come: flow 'phone' could not run "
                + "(step 1 'register through an adapter that is gone' could not run)")
        #expect(wait.errors.first?.kind == .skipped)
        #expect(wait.errors.first?.fields["emitter"] == "phone")
        #expect(byFlow["tablet"]?.last?.error?.hasPrefix("skipped: event 'registrationUpdated'") == true)
        // A flow that waited for one that could not run could not run either, for those that wait for it.
        #expect(byFlow["watch"]?.map(\.verdict) == [.skipped])
        #expect(byFlow["watch"]?.first?.error?.contains("flow 'tablet' could not run") == true)
        #expect(byFlow["any"]?.map(\.verdict) == [.skipped])
        #expect(result.counts[.fail, default: 0] == 0)
        #expect(result.status == .cannotRun)
    }
}

/// A wait whose emitter failed is skipped, naming the emitting step: the failure is the emitter's, counted once.
@Suite struct WaitEmitterFailedTests {
    @Test func aWaitWhoseEmittingStepFailedIsSkippedNamingIt() async throws {
        let s = try suite(
            """
            suite: failed
            title: the emitter failed
            flows:
              phone:
                - name: register at a path that is not there
                  request: {method: POST, url: "/missing"}
                  expect: {status: 200}
                  emits: registrationUpdated
              tablet:
                - wait: {event: registrationUpdated, flow: phone, timeout: 60s}
                - name: read the phone's registration
                  request: {url: "/reg/x"}
              laptop:
                - wait: {event: registrationUpdated, timeout: 60s}
            """)
        let result = await Runner(transport: InProcessTransport(FakeService())).run(
            RunPlan(suites: [s], exchangeTimeout: .seconds(5), targetDescription: "fake"))
        let byFlow = Dictionary(grouping: result.steps, by: \.flow)
        #expect(byFlow["phone"]?.map(\.verdict) == [.fail])
        #expect(byFlow["tablet"]?.map(\.verdict) == [.skipped, .skipped])
        #expect(
            byFlow["tablet"]?.first?.error
                == "skipped: event 'registrationUpdated' from flow 'phone' will not come: flow 'phone' did not emit "
                + "it, its emitting step 1 'register at a path that is not there' failed")
        #expect(byFlow["tablet"]?.first?.errors.first?.fields["emitter"] == "phone")
        #expect(
            byFlow["laptop"]?.first?.error
                == "skipped: event 'registrationUpdated' will not come: flow 'phone' did not emit it, its emitting "
                + "step 1 'register at a path that is not there' failed")
        // The one failure is the emitter's: the run does not conform, and nothing else failed.
        #expect(result.counts[.fail, default: 0] == 1)
        #expect(result.status == .mismatch)
    }

    @Test func aWaitWhoseEmitterFailedBeforeTheEmittingStepIsSkippedNamingBoth() async throws {
        let s = try suite(
            """
            suite: earlier
            title: a step before the emitter failed
            flows:
              phone:
                - name: create at a path that is not there
                  request: {method: POST, url: "/missing"}
                  expect: {status: 200}
                - name: register
                  request: {method: POST, url: "/reg"}
                  emits: registrationUpdated
              tablet:
                - wait: {event: registrationUpdated, flow: phone, timeout: 60s}
            """)
        let result = await Runner(transport: InProcessTransport(FakeService())).run(
            RunPlan(suites: [s], exchangeTimeout: .seconds(5), targetDescription: "fake"))
        #expect(result.steps.map(\.verdict) == [.fail, .skipped, .skipped])
        #expect(
            result.steps[2].error
                == "skipped: event 'registrationUpdated' from flow 'phone' will not come: flow 'phone' did not emit "
                + "it, its emitting step 2 'register' did not run: step 1 'create at a path that is not there' failed")
    }
}
