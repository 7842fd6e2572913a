import ConformCore
import ConformReference
import Foundation
import Testing

/// Every endpoint the reference serves has a suite step that checks it, and `suites/README.md` says which.
@Suite struct EndpointCoverageTests {
    static let readme = DocsSection(name: "endpoint-coverage", file: "suites/README.md")

    @Test func everyStepReachesAnEndpointOfTheReference() throws {
        let coverage = EndpointCoverage.compute(try SuitesBundle.load())
        #expect(coverage.unrouted.isEmpty, "steps no endpoint answers: \(coverage.unrouted.map(\.location))")
    }

    @Test func everyEndpointHasAStepThatChecksASuccess() throws {
        let coverage = EndpointCoverage.compute(try SuitesBundle.load())
        #expect(coverage.rows.count == ReferenceEndpoint.all.count)
        for row in coverage.rows {
            #expect(!row.steps.isEmpty, "\(row.endpoint) has no suite step")
            // The protocol-relevant fields: the success status, and the body when the endpoint answers one.
            let checked = row.steps.filter { $0.expectsSuccess && (!row.endpoint.answersWithBody || $0.checksJSON) }
            let what = row.endpoint.answersWithBody ? "expects a 2xx and checks its JSON body" : "expects a 2xx"
            #expect(!checked.isEmpty, "\(row.endpoint) has no step that \(what)")
        }
    }

    /// The table lists exactly the steps that exist: none that is gone, none missing.
    @Test func readmeTableListsExactlyTheStepsOfEachEndpoint() throws {
        let coverage = EndpointCoverage.compute(try SuitesBundle.load())
        let text = try String(contentsOf: Self.readme.path, encoding: .utf8)
        let listed = EndpointCoverage.parse(text)
        for row in coverage.rows {
            let expected = EndpointCoverage.cell(row.steps)
            #expect(
                listed[row.endpoint.id] == expected,
                "suites/README.md row \(row.endpoint.id) lists \(listed[row.endpoint.id] ?? "nothing"), the suites have \(expected)"
            )
        }
        let unknown = Set(listed.keys).subtracting(coverage.rows.map(\.endpoint.id))
        #expect(unknown.isEmpty, "suites/README.md lists endpoints the reference does not serve: \(unknown.sorted())")
    }

    @Test func readmeShowsTheCurrentTable() throws {
        try Self.readme.check(EndpointCoverage.compute(try SuitesBundle.load()).markdown())
    }

    /// The classification itself: templates, base URLs, query strings and the method override.
    @Test func requestsAreClassifiedByTheRouteTable() throws {
        func endpoint(_ method: String, _ url: String, override: String? = nil) throws -> String? {
            let headers: [(name: String, value: MatchSpec)] =
                override.map { [("X-HTTP-Method-Override", .literal(.string(Template(literal: $0))))] } ?? []
            let request = RequestSpec(
                method: .string(Template(literal: method)), url: .string(try Template(parsing: url)),
                headers: headers)
            return EndpointCoverage.endpoint(of: request)?.id
        }
        #expect(try endpoint("POST", "{{ mobile }}/mobile/1/appinstance") == "M1")
        #expect(try endpoint("DELETE", "{{ mobile }}/mobile/1/appinstance/{{ expiredId }}") == "M11")
        #expect(try endpoint("POST", "{{ mobile }}/mobile/1/appinstance/{{ id }}", override: "PATCH") == "M2")
        #expect(try endpoint("GET", "{{ baseUrl }}/mobile/1/appinstance/unknown-{{ uuid }}") == "M3")
        #expect(try endpoint("GET", "https://api.example.com/people/2/persons?identifier=x") == "B5")
        #expect(try endpoint("PUT", "{{ mobile }}/mobile/1/appinstance/{{ id }}") == nil)
        #expect(try endpoint("GET", "{{ mobile }}/mobile/1/inbox") == nil)
    }
}
