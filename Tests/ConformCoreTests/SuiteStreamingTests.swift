import ConformCore
import ConformMobileMessaging
import ConformYAML
import Foundation
import Testing

/// Steps built while the parser streams them give the suite, and the problems, that a whole tree gives.
@Suite struct SuiteStreamingTests {
    static let suitesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("suites")

    func loaders() -> (streaming: SuiteLoader, whole: SuiteLoader) {
        let streaming = SuiteLoader(profile: .mobileMessaging)
        var whole = streaming
        whole.streamsSteps = false
        return (streaming, whole)
    }

    func outcome(_ loader: SuiteLoader, _ bytes: [UInt8]) -> Result<Suite, YAMLParseFailure> {
        Result { () throws(YAMLParseFailure) in try loader.load(bytes: bytes, file: "suite.yaml") }
    }

    @Test func everyBundledSuiteLoadsAlike() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.suitesDirectory.path)
            .filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(files.count > 10)
        let (streaming, whole) = loaders()
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: Self.suitesDirectory.appendingPathComponent(file)))
            let a = try outcome(streaming, bytes).get()
            let b = try outcome(whole, bytes).get()
            #expect(a == b, "\(file)")
            #expect(a.stepCount > 0)
        }
    }

    @Test func problemsInStreamedStepsAreTheSameAndInFileOrder() {
        let text = """
            suite: s
            title: T
            flows:
              one:
                - name: a
                  request: {method: GET, url: "{{ mobile }}/x"}
                  expect: {status: 99}
                - name: b
                  requets: {}
              two:
                - wait: registrationUpdated
                  request: {url: x}
                - 5
            """
        let (streaming, whole) = loaders()
        let a = outcome(streaming, Array(text.utf8))
        let b = outcome(whole, Array(text.utf8))
        guard case .failure(let streamed) = a, case .failure(let built) = b else {
            Issue.record("both loads must fail")
            return
        }
        #expect(streamed == built)
        #expect(streamed.diagnostics.count >= 4)
        let marks = streamed.diagnostics.compactMap(\.mark)
        #expect(marks.count == streamed.diagnostics.count)
        #expect(marks == marks.sorted())
    }

    @Test func aFlowRepeatedThroughAnAliasKeepsItsSteps() throws {
        let text = """
            suite: s
            title: T
            flows:
              phone: &lifecycle
                - name: register
                  request: {method: POST, url: "{{ mobile }}/mobile/1/appinstance"}
                - name: read back
                  request: {url: "{{ mobile }}/mobile/1/appinstance/x"}
              tablet: *lifecycle
            """
        let (streaming, whole) = loaders()
        let a = try outcome(streaming, Array(text.utf8)).get()
        let b = try outcome(whole, Array(text.utf8)).get()
        #expect(a == b)
        #expect(a.flows.map(\.name) == ["phone", "tablet"])
        #expect(a.flows.map { $0.steps.map(\.name) } == [["register", "read back"], ["register", "read back"]])
    }

    @Test func aSuiteWithStepsAndFlowsIsRefusedAlike() {
        let text = """
            suite: s
            title: T
            steps:
              - name: a
                requets: {url: "{{ mobile }}/x"}
            flows:
              one:
                - name: b
                  request: {url: "{{ mobile }}/y"}
            """
        let (streaming, whole) = loaders()
        let a = outcome(streaming, Array(text.utf8))
        let b = outcome(whole, Array(text.utf8))
        #expect(a == b)
        guard case .failure(let failure) = a else {
            Issue.record("a suite with both 'steps' and 'flows' must be refused")
            return
        }
        // Both lists are still read, so a problem inside either is reported with the rest.
        #expect(failure.diagnostics.contains { $0.message.contains("not both") })
        #expect(failure.diagnostics.contains { $0.message.contains("requets") })
    }

    /// A long list of steps, `problems` of them misspelt, and a YAML syntax error after them when `broken`.
    static func longSuite(steps: Int, problems: Set<Int> = [], broken: Bool = false) -> [UInt8] {
        var text = "suite: long\ntitle: T\nvars: {appCode: c}\nsteps:\n"
        for i in 0..<steps {
            text += """
                  - name: step \(i)
                    \(problems.contains(i) ? "requets" : "request"):
                      method: POST
                      url: "{{ mobile }}/mobile/1/appinstance/\(i)?ri=true"
                      headers: {Authorization: "App {{ appCode }}"}
                      json: {"pushServiceToken": "t-\(i)", "n": \(i)}
                    expect:
                      status: \(problems.contains(i) ? "2x0" : "200")
                      headers: {Content-Type: {$regex: "^application/json"}}
                      json: {"regEnabled": true, "pushRegId": {"$type": "string"}}
                    capture: {reg\(i % 3): $.pushRegId}

                """
        }
        if broken { text += "  - name: [unclosed\n" }
        return Array(text.utf8)
    }

    /// Steps built on a thread of their own give the suite, and the problems in file order, that steps built on the
    /// parser's thread and a whole tree give; a syntax error after them is the same failure.
    @Test(arguments: [false, true])
    func stepsBuiltOnAThreadLoadAlike(broken: Bool) {
        let (streaming, whole) = loaders()
        var threaded = streaming
        threaded.buildsOnAThread = true
        var inline = streaming
        inline.buildsOnAThread = false
        for problems: Set<Int> in [[], [0, 63, 64, 65, 511, 1999]] {
            let bytes = Self.longSuite(steps: 2_000, problems: problems, broken: broken)
            #expect(bytes.count >= SuiteLoader.stepThreadMinimumBytes, "built on a thread by default")
            let a = outcome(threaded, bytes)
            #expect(a == outcome(inline, bytes))
            #expect(a == outcome(whole, bytes))
            #expect(a == outcome(streaming, bytes))
            switch a {
            case .success(let suite):
                #expect(!broken && problems.isEmpty)
                #expect(suite.stepCount == 2_000)
                #expect(suite.flows.first?.steps.last?.name == "step 1999")
            case .failure(let failure):
                #expect(broken || !problems.isEmpty)
                let lines = failure.diagnostics.compactMap { $0.mark?.line }
                #expect(lines == lines.sorted())
                // Each misspelt step is reported; a broken file stops at its syntax error.
                if !broken { #expect(failure.diagnostics.count >= problems.count, "\(failure.diagnostics)") }
            }
        }
    }
}
