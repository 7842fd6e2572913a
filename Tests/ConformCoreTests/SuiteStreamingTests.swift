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
}
