import ConformCore
import ConformReport
import ConformRunner
import Foundation
import Testing

@Suite struct ReporterTests {
    /// A run with every verdict: pass, assumption not met, fail (must), skipped.
    func mixedRun() async throws -> RunResult {
        let s = try suite(
            """
            suite: mixed
            title: Every verdict & <escaping>
            step: 2-login
            spec: {section: "flow step 2; API M4", decisions: [D2]}
            steps:
              - name: register
                request: {method: POST, url: "/reg", headers: {Authorization: App secret-code}}
                expect: {status: 200}
                capture: {reg: $.pushRegId}
              - name: assumed status
                request: {url: "/reg/{{ reg }}"}
                assume: {D2: {status: 400}}
              - name: must fail
                request: {url: "/missing"}
                expect: {status: 200, json: {requestError: {serviceException: {messageId: OK}}}}
              - name: skipped step
                request: {url: "/reg/x"}
            """, file: "suites/mixed.yaml")
        var result = await Runner(transport: InProcessTransport(FakeService())).run(
            RunPlan(suites: [s], targetDescription: "fake service"))
        result.duration = 0
        return result
    }

    @Test func junitGolden() async throws {
        try expectGolden(
            JUnitReporter(sink: MemorySink(), deterministic: true).render(try await mixedRun()), "mixed.junit.xml")
    }

    @Test func jsonGolden() async throws {
        let sink = MemorySink()
        JSONReporter(sink: sink, deterministic: true).handle(.runFinished(try await mixedRun()))
        try expectGolden(sink.text, "mixed.json")
    }

    @Test func consoleShowsDiffsAndSummaryLastWithoutColourUnlessAsked() async throws {
        let result = try await mixedRun()
        let sink = MemorySink()
        let console = ConsoleReporter(sink: sink)
        console.handle(.suiteFinished(result.suites[0]))
        console.handle(.runFinished(result))
        let text = sink.text
        #expect(!text.contains("\u{1B}["))
        #expect(text.contains("must $.requestError.serviceException.messageId"))
        #expect(text.contains("expected: \"OK\""))
        #expect(text.contains("assumption not met (D2)"))
        #expect(text.contains("--> suites/mixed.yaml:13:5  spec: flow step 2; API M4 [D2]"))
        #expect(text.hasSuffix("Result: DOES NOT CONFORM\n"))
        let coloured = MemorySink()
        ConsoleReporter(sink: coloured, color: true).handle(.runFinished(result))
        #expect(coloured.text.contains("\u{1B}[31;1mResult: DOES NOT CONFORM\u{1B}[0m"))
    }
}
