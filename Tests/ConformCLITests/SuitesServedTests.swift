import ConformCore
import ConformCurl
import ConformReference
import ConformReport
import ConformRunner
import ConformServer
import Testing

@Suite("Bundled suites over HTTP")
struct SuitesServedTests {
    @Test func suitesConformAgainstTheServedReference() async throws {
        let result = try await SuitesBundle.runServed(ReferenceImplementation(configuration: .default))
        #expect(result.exitCode == 0, Comment(rawValue: SuitesBundle.problems(in: result)))
        #expect(result.steps.allSatisfy { $0.verdict == .pass }, Comment(rawValue: SuitesBundle.problems(in: result)))
        #expect(result.steps.count > 100)
    }
}
