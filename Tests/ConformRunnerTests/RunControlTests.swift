import ConformCore
import ConformReport
import ConformRunner
import Foundation
import Synchronization
import Testing

/// `conform run --tag/--filter/--step` (RunSelection), `--fail-fast` and `--repeat` in the runner.
@Suite struct RunControlTests {
    static let devices = """
        suite: devices
        title: two devices
        tags: [smoke, multi-device]
        flows:
          tablet:
            - name: register the tablet
              request: {method: POST, url: "/reg"}
            - wait: {event: phoneRegistered, flow: phone, timeout: 60s}
            - name: read the phone
              request: {url: "/reg/{{ phone.reg }}"}
            - name: tablet after
              request: {url: "/reg/x"}
          phone:
            - name: register the phone
              request: {method: POST, url: "/reg"}
              capture: {reg: $.pushRegId}
              emits: phoneRegistered
            - name: phone after
              request: {url: "/reg/y"}
          other:
            - name: unrelated
              request: {url: "/reg/z"}
        """
    static let single = """
        suite: single
        title: one flow
        tags: [errors]
        steps:
          - name: first
            request: {url: "/reg/a"}
          - name: second
            request: {url: "/reg/b"}
        """

    static let flaky = """
        suite: flaky
        title: one step that changes
        steps:
          - name: sometimes fails
            request: {url: "/x"}
            expect: {status: 200}
        """

    func steps(_ suites: [Suite]) -> [String] {
        suites.flatMap { s in s.flows.flatMap { f in f.steps.map { "\(s.id)/\(f.name)/\($0.name)" } } }
    }

    @Test func globsMatchTheWholeTextWithStarsForAnyRun() {
        #expect(Glob.matches("log*out*", "log out (depersonalize)"))
        #expect(Glob.matches("*", ""))
        #expect(Glob.matches("a*b*c", "abc"))
        #expect(!Glob.matches("a*a", "a"))
        #expect(!Glob.matches("login", "login-personalize"))
        #expect(Glob.matches("login*", "login-personalize"))
        #expect(!Glob.matches("*x", "xy"))
    }

    @Test func tagsSelectWholeSuites() throws {
        let suites = [try suite(Self.devices), try suite(Self.single)]
        #expect(RunSelection(tags: ["errors"]).apply(suites).map(\.id) == ["single"])
        #expect(RunSelection(tags: ["smoke", "errors"]).apply(suites).map(\.id) == ["devices", "single"])
        #expect(RunSelection(tags: ["none"]).apply(suites).isEmpty)
        #expect(RunSelection().apply(suites) == suites)
    }

    @Test func aChosenStepBringsItsFlowsEarlierStepsAndTheEmitterItWaitsFor() throws {
        let suites = [try suite(Self.devices), try suite(Self.single)]
        let trimmed = RunSelection(steps: ["read the phone"]).apply(suites)
        #expect(
            steps(trimmed) == [
                "devices/tablet/register the tablet", "devices/tablet/wait for phoneRegistered",
                "devices/tablet/read the phone", "devices/phone/register the phone",
            ])
        // A step chosen by its path; steps after it in its flow and flows it does not need are left out.
        #expect(
            steps(RunSelection(filters: ["single/main/first"]).apply(suites)) == ["single/main/first"])
        #expect(steps(RunSelection(filters: ["single"]).apply(suites)) == ["single/main/first", "single/main/second"])
        // Filters and step patterns both apply.
        #expect(
            steps(RunSelection(filters: ["devices"], steps: ["unrelated"]).apply(suites)) == ["devices/other/unrelated"]
        )
    }

    @Test func aTrimmedSuiteRunsAndItsPrerequisitesAreReportedAsUsual() async throws {
        let trimmed = RunSelection(steps: ["read the phone"]).apply([try suite(Self.devices)])
        let result = await Runner(transport: InProcessTransport(FakeService())).run(
            RunPlan(suites: trimmed, targetDescription: "fake"))
        #expect(result.steps.map(\.verdict) == [.pass, .pass, .pass, .pass])
        #expect(result.steps.map(\.index) == [0, 1, 2, 0])
    }

    @Test func failFastStartsNothingAfterTheFirstFailure() async throws {
        let failing = try suite(
            """
            suite: a-failing
            title: fails first
            steps:
              - name: wrong status
                request: {url: "/reg/a"}
                expect: {status: 201}
              - name: next
                request: {url: "/reg/b"}
            """)
        let later = try suite(Self.single)
        var plan = RunPlan(suites: [failing, later], maxConcurrentSuites: 1, targetDescription: "fake")
        plan.failFast = true
        let result = await Runner(transport: InProcessTransport(FakeService())).run(plan)
        #expect(result.steps.map(\.verdict) == [.fail, .skipped, .skipped, .skipped])
        #expect(result.steps[1].error?.hasPrefix("skipped: step 1 'wrong status'") == true)
        #expect(
            result.steps[2].error == "not run: --fail-fast stopped the run after a-failing › main › 1. wrong status")
        #expect(result.exitCode == 1)
        // Without it, the later suite runs.
        plan.failFast = false
        let all = await Runner(transport: InProcessTransport(FakeService())).run(plan)
        #expect(all.steps.map(\.verdict) == [.fail, .skipped, .pass, .pass])
    }

    /// Answers 200, then 500, then 200 … to every request.
    final class Alternating: Transport {
        let calls = Mutex(0)
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let n = calls.withLock { n -> Int in
                n += 1
                return n
            }
            return .json(n % 2 == 1 ? 200 : 500, ["call": .int(n)])
        }
    }

    @Test func aRepeatedRunKeepsTheWorstVerdictAndNamesTheFlakySteps() async throws {
        let s = try suite(Self.flaky)
        let runner = Runner(transport: Alternating())
        let seen = Mutex<[Int]>([])
        let result = await runner.run(RunPlan(suites: [s], targetDescription: "fake"), times: 3) { n, _ in
            seen.withLock { $0.append(n) }
        }
        #expect(seen.withLock { $0 } == [1, 2, 3])
        #expect(result.repetitions == 3)
        #expect(result.steps.map(\.verdict) == [.fail])
        #expect(result.flaky.map(\.title) == ["flaky › main › 1. sometimes fails"])
        #expect(result.flaky.first?.verdicts == [.pass, .fail, .pass])
        #expect(result.flaky.first?.tally == "pass 2, fail 1")
        let json = JSONReporter(sink: MemorySink(), deterministic: true).render(result)
        #expect(json["repetitions"] == .int(3))
        #expect(json["flaky"]?[0]?["verdicts"] == .array([.string("pass"), .string("fail"), .string("pass")]))
        let sink = MemorySink()
        ConsoleReporter(sink: sink).handle(.runFinished(result))
        let console = sink.text
        #expect(console.contains("Repeated 3 times; each step shows its worst verdict. Flaky (the verdict changed):"))
        #expect(console.contains("~ flaky › main › 1. sometimes fails: pass 2, fail 1"))
    }

    @Test func aRepeatedFailFastRunEndsWithTheFirstFailingRepetition() async throws {
        let s = try suite(Self.flaky)
        var plan = RunPlan(suites: [s], targetDescription: "fake")
        plan.failFast = true
        let result = await Runner(transport: Alternating()).run(plan, times: 10)
        #expect(result.repetitions == 2)
        #expect(result.steps.map(\.verdict) == [.fail])
    }
}
