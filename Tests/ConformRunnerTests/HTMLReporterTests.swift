import ConformCore
import ConformReport
import ConformRunner
import Foundation
import Testing

/// A fixed JWT-shaped token (not signed by anything); the report must never show it.
let sampleJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"

/// A stateless mobile/backend stand-in: answers are the same whatever order the suites run in.
struct CertificationFakeService: HTTPHandler {
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch (request.method, request.path) {
        case (.post, "/mobile/1/appinstance"):
            var response = HTTPResponse.json(200, ["pushRegId": "reg-1", "token": .string(sampleJWT)])
            response.headerFields.append(name: "Set-Cookie", value: "session=abc123secretvalue; Path=/; HttpOnly")
            return response
        case (.post, "/mobile/1/appinstance/reg-1/user/personalize"):
            let echoed = (try? JSONValue.parse(request.body)) ?? .null
            return .json(200, ["echo": echoed, "authorization": .string(request.headerFields["Authorization"] ?? "")])
        case (.get, "/binary"):
            return HTTPResponse(
                status: 200, headerFields: ["Content-Type": "application/octet-stream"],
                body: Data([0xFF, 0xFE, 0x00, 0x80]))
        default:
            return .json(
                404, ["requestError": ["serviceException": ["messageId": "NOT_FOUND", "text": "no such path"]]])
        }
    }
}

/// Forwards to an in-process handler, except that `/down` is refused as an unreachable server would be.
struct PartlyDownTransport: Transport {
    let inner = InProcessTransport(CertificationFakeService())
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if request.path == "/down" { throw TransportError(.connectionRefused, "127.0.0.1:9 refused the connection") }
        return try await inner.send(request)
    }
}

/// A run over three flow steps (given out of flow order) with every verdict, secrets and hostile text.
func certificationRun() async throws -> RunResult {
    var hygiene = try suite(
        """
        suite: hygiene
        title: Quotes "double" & 'single' <b>not bold</b>
        step: 8-hygiene
        spec: {section: "API errors", decisions: [D11]}
        steps:
          - name: a binary answer
            request:
              url: "/binary"
              headers: {X-Api-Key: conform-api-key-0123456789, Cookie: "session=abc123secretvalue; theme=dark"}
            expect: {status: 200}
          - name: the backend is down
            request: {url: "/down", headers: {AppCode: conform-app-code}}
            expect: {status: 200}
          - name: after the outage
            request: {url: "/binary"}
        """, file: "suites/08-hygiene.yaml")
    var login = try suite(
        """
        suite: login-jwt
        title: Personalize with a JWT <script>alert(1)</script>
        step: 2-login
        profile: jwt
        spec: {section: "flow step 2; API M4", decisions: [D2, D9]}
        vars:
          token: \(sampleJWT)
        steps:
          - name: personalize with a bearer token
            request:
              method: POST
              url: "/mobile/1/appinstance/reg-1/user/personalize"
              query: {forceDepersonalize: "false"}
              headers: {Authorization: "Bearer {{ token }}"}
              json: {userIdentity: {externalUserId: "<script>alert(\\"x\\")</script>"}}
            expect: {status: 200, json: {echo: {userIdentity: {externalUserId: someone-else}}}}
          - name: depersonalize
            request: {method: POST, url: "/mobile/1/appinstance/reg-1/depersonalize"}
            expect: {status: 200}
        """, file: "suites/02-login.yaml")
    var registration = try suite(
        """
        suite: registration
        title: Registration yields a pushRegId
        step: 1-registration
        spec: {section: "flow step 1; API M1", decisions: [D10]}
        steps:
          - name: register the installation
            request:
              method: POST
              url: "/mobile/1/appinstance"
              headers: {Authorization: "App conform-app-code"}
              json: {pushServiceToken: fcm-1, pushServiceType: Firebase, from: conform-app-code}
            expect: {status: 200, json: {pushRegId: {$type: string}}}
          - name: a user call with an unknown pushRegId is refused
            request: {url: "/mobile/1/appinstance/unknown/user", headers: {Authorization: "App conform-app-code"}}
            expect: {status: 4xx}
            assume:
              D10: {status: 400, json: {requestError: {serviceException: {messageId: NO_REGISTRATION}}}}
        """, file: "suites/01-registration.yaml")
    hygiene.contentHash = String(repeating: "8a", count: 32)
    login.contentHash = String(repeating: "2b", count: 32)
    registration.contentHash = String(repeating: "1c", count: 32)
    let plan = RunPlan(suites: [hygiene, login, registration], targetDescription: "Acme Push <staging> \"eu\"")
    var result = await Runner(transport: PartlyDownTransport()).run(plan)
    result.duration = 0
    for i in result.suites.indices {
        result.suites[i].duration = 0
        for j in result.suites[i].steps.indices { result.suites[i].steps[j].duration = 0 }
    }
    return result
}

func renderCertification() async throws -> String {
    HTMLReporter(sink: MemorySink(), date: "2025-06-01 09:30:00 UTC", deterministic: true).render(
        try await certificationRun())
}

@Suite struct HTMLReporterTests {
    @Test func mixedRunGolden() async throws {
        try expectGolden(try await renderCertification(), "mixed.html")
    }

    @Test func runHasEveryVerdict() async throws {
        let counts = try await certificationRun().counts
        #expect(counts == [.pass: 2, .fail: 1, .assumptionNotMet: 1, .skipped: 2, .error: 1])
    }

    @Test func matrixFollowsTheFlowOrderAndLinksToExchanges() async throws {
        let page = try await renderCertification()
        let rows = ["data-suite=\"registration\"", "data-suite=\"login-jwt\"", "data-suite=\"hygiene\""].map {
            page.range(of: $0)?.lowerBound
        }
        #expect(rows.allSatisfy { $0 != nil })
        #expect(rows.compactMap { $0 } == rows.compactMap { $0 }.sorted())
        #expect(page.contains("<th scope=\"rowgroup\" rowspan=\"1\" class=\"flow-step\">1-registration</th>"))
        #expect(page.contains("<a href=\"#suite-login-jwt-step1\" aria-label=\"1 failed in login-jwt\">1</a>"))
        #expect(page.contains("id=\"suite-login-jwt-step1\""))
        #expect(
            page.contains(
                "<code class=\"hash\" title=\"SHA-256 \(String(repeating: "1c", count: 32))\">1c1c1c1c1c1c</code>"))
        #expect(page.contains("COULD NOT RUN</p>"))
        #expect(page.contains("<dt>Application profiles</dt><dd><code>all</code>, <code>jwt</code></dd>"))
        #expect(
            page.contains("<dt>Decisions not met</dt><dd><code><a class=\"ref\" href=\"#ref-d10\">D10</a></code></dd>"))
    }

    @Test func eventSinkGetsThePageWhenTheRunFinishes() async throws {
        let sink = MemorySink()
        let reporter = HTMLReporter(sink: sink, date: "today")
        let result = try await certificationRun()
        reporter.handle(.suiteFinished(result.suites[0]))
        #expect(sink.text.isEmpty)
        reporter.handle(.runFinished(result))
        #expect(sink.text.hasPrefix("<!DOCTYPE html>"))
        #expect(sink.text.hasSuffix("</html>\n"))
    }

    @Test func overallVerdictWords() {
        func page(_ verdicts: [Verdict]) -> String {
            let steps = verdicts.enumerated().map { i, v in
                StepResult(
                    suiteID: "s", flow: "main", index: i, name: "n", file: "f.yaml", mark: .init(line: 1, column: 1),
                    spec: .init(), verdict: v)
            }
            let run = RunResult(
                suites: [SuiteResult(suite: Suite(id: "s", title: "t", flows: []), steps: steps, duration: 0)],
                duration: 0, target: "x")
            return HTMLReporter(sink: MemorySink(), date: "d", deterministic: true).render(run)
        }
        #expect(page([.pass, .assumptionNotMet]).contains("✔</span> Conformance run — CONFORMS</p>"))
        #expect(page([.pass, .fail, .skipped]).contains("✘</span> Conformance run — DOES NOT CONFORM</p>"))
        #expect(page([.fail, .error]).contains("!</span> Conformance run — COULD NOT RUN</p>"))
        #expect(page([]).contains("(no flow step)"))
    }
}
