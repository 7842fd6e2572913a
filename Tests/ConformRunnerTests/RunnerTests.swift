import ConformCore
import ConformReport
import ConformRunner
import Foundation
import Synchronization
import Testing

@Suite struct RunnerTests {
    let transport = InProcessTransport(FakeService())

    func run(
        _ suites: [Suite], transport: (any Transport)? = nil, timeout: Duration = .seconds(5),
        overrides: [String: String] = [:]
    ) async -> RunResult {
        await Runner(transport: transport ?? self.transport).run(
            RunPlan(suites: suites, overrides: overrides, exchangeTimeout: timeout, targetDescription: "fake"))
    }

    @Test func capturesFlowIntoLaterSteps() async throws {
        let s = try suite(
            """
            suite: chain
            title: captures chain
            steps:
              - name: register
                request: {method: POST, url: "/reg"}
                expect: {status: 200, json: {pushRegId: {$regex: "^reg-"}}}
                capture: {reg: $.pushRegId}
              - name: read back
                request: {url: "/reg/{{ reg }}"}
                expect: {status: 200, json: {pushRegId: "{{ reg }}", ok: true}}
            """)
        let result = await run([s])
        #expect(result.steps.map(\.verdict) == [.pass, .pass])
        #expect(result.steps[1].request?.url.hasPrefix("/reg/reg-") == true)
        #expect(result.exitCode == 0)
    }

    /// A gateway's 502/503/504 page (HTML, text, no body) in front of the implementation says nothing about it: the
    /// step could not run (the run is COULD NOT RUN, not DOES NOT CONFORM). A JSON 503 is the implementation's own.
    @Test(
        arguments: [
            (503, "text/html", "<html><body>Service Unavailable</body></html>"), (502, "text/plain", "Bad Gateway"),
            (504, nil, ""),
        ] as [(Int, String?, String)])
    func aGatewaysPageIsNoVerdictOnTheImplementation(_ status: Int, _ type: String?, _ body: String) async throws {
        struct Gateway: Transport {
            let response: HTTPResponse
            func send(_ request: HTTPRequest) async throws -> HTTPResponse { response }
        }
        var fields = HTTPFields()
        if let type { fields["Content-Type"] = type }
        let gateway = Gateway(
            response: HTTPResponse(status: HTTPStatus(status), headerFields: fields, body: Data(body.utf8)))
        let s = try suite(
            """
            suite: gateway
            title: behind a gateway
            steps:
              - name: register
                request: {method: POST, url: "/reg"}
                expect: {status: 200}
              - name: read back
                request: {url: "/reg/1"}
                expect: {status: 200}
            """)
        let result = await run([s], transport: gateway)
        #expect(result.steps.map(\.verdict) == [.error, .skipped])
        #expect(result.status == .cannotRun)
        let shown = type.map { "a '\($0)' body that is not JSON" } ?? "no body"
        #expect(
            result.steps[0].error
                == "gateway unavailable: \(status) \(HTTPStatus(status).reasonPhrase) with \(shown): a proxy or gateway "
                + "in front of the implementation answered, not the implementation; run again when it is up")
        // The implementation's own JSON 503 is judged.
        let own = Gateway(response: .json(503, ["requestError": ["serviceException": ["messageId": "BUSY"]]]))
        #expect((await run([s], transport: own)).steps.map(\.verdict) == [.fail, .skipped])
    }

    /// Default credentials refused by most of a run make it COULD NOT RUN naming them; one refusal among passes is a
    /// verdict on the implementation, whatever credentials were sent.
    @Test func refusedDefaultCredentialsAreACauseOnlyWhenTheyAreMostOfTheRun() async throws {
        struct Refusing: Transport {
            /// The paths answered 401; the rest 200.
            let refused: Set<String>
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                refused.contains(URLParts(request.url).path) ? .json(401, ["error": "unauthorized"]) : .json(200, [:])
            }
        }
        let s = try suite(
            """
            suite: creds
            title: three calls
            flows:
              a:
                - name: one
                  request: {url: "/a"}
                  expect: {status: 200}
              b:
                - name: two
                  request: {url: "/b"}
                  expect: {status: 200}
              c:
                - name: three
                  request: {url: "/c"}
                  expect: {status: 200}
            """)
        func run(refusing paths: Set<String>) async -> RunResult {
            var plan = RunPlan(suites: [s], exchangeTimeout: .seconds(5), targetDescription: "fake")
            plan.defaultCredentials = ["appCode"]
            return await Runner(transport: Refusing(refused: paths)).run(plan)
        }
        let most = await run(refusing: ["/a", "/b"])
        #expect(most.steps.map(\.verdict) == [.error, .error, .pass])
        #expect(most.status == .cannotRun)
        #expect(most.steps[0].errors.last?.kind == .credentialsRefused)
        #expect(most.steps[0].errors.last?.fields == ["status": "401", "variables": "appCode"])
        let one = await run(refusing: ["/a"])
        #expect(one.steps.map(\.verdict) == [.fail, .pass, .pass])
        #expect(one.status == .mismatch)
    }

    @Test func severitiesGiveVerdictsAndStopTheFlow() async throws {
        let s = try suite(
            """
            suite: sev
            title: severities
            steps:
              - name: assumption only
                request: {method: POST, url: "/reg"}
                expect: {status: 2xx}
                assume: {D1: {status: 201}}
              - name: a must failure
                request: {url: "/nope"}
                expect: {status: 200}
              - name: never sent
                request: {url: "/reg/x"}
            """)
        let result = await run([s])
        #expect(result.steps.map(\.verdict) == [.assumptionNotMet, .fail, .skipped])
        #expect(result.steps[0].failures.first?.decision == "D1")
        #expect(result.steps[2].error == "skipped: step 2 'a must failure' of flow 'main' did not pass")
        #expect(result.steps[2].request == nil)
        #expect(result.exitCode == 1)
    }

    /// A decision's facts, listed, are judged apart: the step reports the one it misses, and not the others.
    @Test func eachListedFactOfADecisionIsJudgedApart() async throws {
        let s = try suite(
            """
            suite: facts
            title: one assumption per fact
            steps:
              - name: registered
                request: {method: POST, url: "/reg"}
                expect: {status: 2xx}
                assume:
                  D1:
                    - {status: 2xx}
                    - {status: 201}
                    - {json: {pushRegId: {$regex: "^reg-"}}}
            """)
        let result = await run([s])
        #expect(result.steps.map(\.verdict) == [.assumptionNotMet])
        let failures = result.steps[0].failures
        #expect(failures.map(\.decision) == ["D1"])
        #expect(failures.flatMap(\.mismatches).map(\.path) == ["status"])
        #expect(failures.flatMap(\.mismatches).map(\.expected) == ["201"])
        #expect(s.flows[0].steps.count == 1)
        let empty = """
            suite: facts
            title: no facts
            steps:
              - name: registered
                request: {method: POST, url: "/reg"}
                assume: {D1: []}
            """
        #expect(throws: (any Error).self) { try suite(empty) }
    }

    @Test func assumptionsAloneStillConform() async throws {
        let s = try suite(
            """
            suite: a
            title: a
            steps:
              - name: x
                request: {method: POST, url: "/reg"}
                assume: {D3: {status: 299}}
            """)
        #expect(await run([s]).exitCode == 0)
    }

    @Test func shouldFailuresFailTheRun() async throws {
        let s = try suite(
            """
            suite: should
            title: should
            steps:
              - name: x
                request: {method: POST, url: "/reg"}
                should: {headers: {X-Missing: $any}}
            """)
        let result = await run([s])
        #expect(result.steps[0].verdict == .fail)
        #expect(result.steps[0].failures.first?.severity == .should)
        #expect(result.exitCode == 1)
    }

    @Test func eventuallyRetriesUntilTheChecksHold() async throws {
        let s = try suite(
            """
            suite: ev
            title: eventually
            steps:
              - name: flaky
                request: {url: "/flaky"}
                expect: {status: 200}
                eventually: {timeout: 60s, interval: 10ms}
            """)
        let result = await run([s])
        #expect(result.steps[0].verdict == .pass)
        #expect(result.steps[0].attempts == 3)
    }

    @Test func eventuallyGivesUpAtItsTimeout() async throws {
        let s = try suite(
            """
            suite: ev2
            title: eventually fails
            steps:
              - name: never
                request: {url: "/nope"}
                expect: {status: 200}
                eventually: {timeout: 100ms, interval: 20ms}
            """)
        let result = await run([s])
        #expect(result.steps[0].verdict == .fail)
        #expect(result.steps[0].attempts >= 1)
        #expect(result.steps[0].error?.contains("still failing after") == true)
    }

    @Test func flowsWaitForNamedEventsAndSeeTheEmittersCaptures() async throws {
        let s = try suite(
            """
            suite: ev3
            title: wait
            flows:
              tablet:
                - wait: {event: registrationUpdated, flow: phone, timeout: 60s}
                - name: read the phone's registration
                  request: {url: "/reg/{{ phone.reg }}"}
                  expect: {json: {pushRegId: "{{ reg }}"}}
              phone:
                - name: register
                  request: {method: POST, url: "/reg"}
                  capture: {reg: $.pushRegId}
                  emits: registrationUpdated
            """)
        let result = await run([s])
        #expect(result.steps.map(\.verdict) == [.pass, .pass, .pass])
        #expect(result.steps.map(\.flow) == ["tablet", "tablet", "phone"])
    }

    @Test func aWaitEndsAsSoonAsNoFlowCanEmitTheEvent() async throws {
        let s = try suite(
            """
            suite: ev4
            title: wait fails fast
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
        // The emitter's failure is the finding; the wait is skipped, naming it.
        #expect(result.steps[1].verdict == .skipped)
        #expect(
            result.steps[1].error
                == "skipped: event 'registrationUpdated' from flow 'phone' will not come: flow 'phone' did not emit "
                + "it, its emitting step 1 'register at a path that is not there, so the event is never announced' "
                + "failed")
    }

    /// A transport that answers through `FakeService` after `delay`, and never for `/hang`.
    struct Slow: Transport {
        let delay: Duration
        let service = FakeService()
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if request.path == "/hang" { try await Task.sleep(for: .seconds(3600)) }
            try await Task.sleep(for: delay)
            return service.handle(request)
        }
    }

    @Test func aWaitOutlastsItsWindowWhileTheEmitterMakesProgress() async throws {
        // The emitter needs 24 × 250 ms = 6 s, twice the 3 s window, but never pauses that long (a window wide
        // enough that a loaded machine's pause between two exchanges does not pass for a stall).
        let steps = (1...24).map { "      - name: step \($0)\n        request: {method: POST, url: \"/reg\"}\n" }
        let s = try suite(
            "suite: slow\ntitle: slow emitter\nflows:\n  emitter:\n" + steps.joined()
                + "      - name: last\n        request: {method: POST, url: \"/reg\"}\n        emits: ready\n"
                + "  waiter:\n    - wait: {event: ready, timeout: 3s}\n")
        let result = await run([s], transport: Slow(delay: .milliseconds(250)))
        #expect(result.steps.last?.verdict == .pass, "\(result.steps.last?.error ?? "")")
        #expect((result.steps.last?.duration ?? 0) > 3)
    }

    @Test func aWaitOnADeadlockedSuiteFailsAfterItsWindowAndSaysWhy() async throws {
        let s = try suite(
            """
            suite: stuck
            title: each flow waits for the other
            flows:
              first:
                - wait: {event: fromSecond, timeout: 60s}
                - name: never sent
                  request: {url: "/reg"}
                  emits: fromFirst
              second:
                - wait: {event: fromFirst, timeout: 200ms}
                - name: never sent either
                  request: {url: "/reg"}
                  emits: fromSecond
            """)
        let result = await run([s], transport: Slow(delay: .zero), timeout: .seconds(3))
        let wait = try #require(result.steps.first { $0.flow == "second" && $0.index == 0 })
        #expect(wait.verdict == .fail)
        #expect(
            wait.error
                == "event 'fromFirst' did not come: no other flow had an exchange under way, started or finished "
                + "one for 200ms (the wait's window; raise it with 'timeout:' on the wait)")
        let other = try #require(result.steps.first { $0.flow == "first" && $0.index == 0 })
        // The stall is the second flow's failure; the first flow's wait is skipped, naming it, not failed again.
        #expect(other.verdict == .skipped)
        #expect(
            other.error
                == "skipped: event 'fromSecond' will not come: flow 'second' did not emit it, its emitting step 2 "
                + "'never sent either' did not run: step 1 'wait for fromFirst' failed")
    }

    @Test func aWaitOnAHangingEmitterEndsWithTheEmittersDeadline() async throws {
        let s = try suite(
            """
            suite: stuck
            title: the emitter hangs
            flows:
              emitter:
                - name: hangs
                  request: {url: "/hang"}
                  emits: ready
              waiter:
                - wait: {event: ready, timeout: 200ms}
            """)
        // The emitter's exchange is under way until its deadline: the wait does not blame the clock for it, it
        // ends when the exchange fails and the emitter finishes without the event.
        let result = await run([s], transport: HangingTransport(), timeout: .milliseconds(600))
        #expect(result.steps[0].error?.hasPrefix("no response: timeout") == true)
        let wait = result.steps[1]
        #expect(wait.verdict == .skipped)
        #expect(
            wait.error
                == "skipped: event 'ready' will not come: flow 'emitter' did not emit it, its emitting step 1 'hangs' "
                + "failed")
    }

    @Test func aHangingImplementationFailsTheStepWithinItsTimeout() async throws {
        let s = try suite(
            """
            suite: hang
            title: hang
            steps:
              - name: x
                request: {url: "/reg"}
            """)
        // The transport never returns: only the runner's deadline can end the step.
        let result = await run([s], transport: HangingTransport(), timeout: .milliseconds(100))
        #expect(result.steps[0].verdict == .fail)
        #expect(result.steps[0].error?.hasPrefix("no response: timeout: no response within 0.1 seconds") == true)
        #expect(result.exitCode == 1)
    }

    @Test func anUnreachableTargetCannotRun() async throws {
        let s = try suite("suite: u\ntitle: u\nsteps:\n  - name: x\n    request: {url: \"/reg\"}\n")
        let result = await run(
            [s], transport: FailingTransport(error: TransportError(.connectionRefused, "http://127.0.0.1:1/reg")))
        #expect(result.steps[0].verdict == .error)
        #expect(result.exitCode == 2)
    }

    @Test func invalidJSONFailsTheStepAndTheRunGoesOn() async throws {
        let bad = try suite(
            "suite: g\ntitle: g\nsteps:\n  - name: x\n    request: {url: \"/garbage\"}\n    expect: {json: {a: 1}}\n")
        let good = try suite(
            "suite: h\ntitle: h\nsteps:\n  - name: y\n    request: {method: POST, url: \"/reg\"}\n    expect: {status: 200}\n"
        )
        let result = await run([bad, good])
        #expect(result.suites.map(\.verdict) == [.fail, .pass])
        #expect(result.steps[0].failures.first?.mismatches.first?.note?.hasPrefix("invalid JSON") == true)
    }

    @Test func overridesWinOverDefaults() async throws {
        let s = try suite(
            """
            suite: vars
            title: vars
            vars: {path: "/nope"}
            steps:
              - name: x
                request: {method: POST, url: "{{ path }}"}
                expect: {status: 200}
            """)
        #expect(await run([s]).exitCode == 1)
        #expect(await run([s], overrides: ["path": "/reg"]).exitCode == 0)
    }

    @Test func eventsArriveInOrderForReporters() async throws {
        let s = try suite("suite: e\ntitle: e\nsteps:\n  - name: x\n    request: {method: POST, url: \"/reg\"}\n")
        let log = Mutex<[String]>([])
        _ = await Runner(transport: transport).run(RunPlan(suites: [s])) { event in
            let name: String
            switch event {
            case .runStarted: name = "run"
            case .suiteStarted: name = "suite"
            case .stepFinished: name = "step"
            case .suiteFinished: name = "suite done"
            case .runFinished: name = "run done"
            }
            log.withLock { $0.append(name) }
        }
        #expect(log.withLock { $0 } == ["run", "suite", "step", "suite done", "run done"])
    }
}
