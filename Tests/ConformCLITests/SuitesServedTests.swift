import ConformCore
import ConformCurl
import ConformReference
import ConformRunner
import ConformServer
import Testing

@Suite("Bundled suites over HTTP")
struct SuitesServedTests {
    @Test func suitesConformAgainstTheServedReference() async throws {
        let server = try HTTPServer(handler: ReferenceImplementation(configuration: .default))
        try server.start()
        defer { server.stop() }
        let base = server.baseURL
        let plan = SuitesBundle.plan(
            try SuitesBundle.load(), variables: ["mobile": base, "backend": base], target: base)
        let result = await Runner(transport: CurlTransport(timeout: .seconds(10))).run(plan)
        #expect(result.exitCode == 0, Comment(rawValue: SuitesBundle.problems(in: result)))
        #expect(result.steps.allSatisfy { $0.verdict == .pass }, Comment(rawValue: SuitesBundle.problems(in: result)))
        #expect(result.steps.count > 100)
    }
}
