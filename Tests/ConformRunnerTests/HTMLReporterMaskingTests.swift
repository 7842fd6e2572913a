import ConformCore
import ConformMobileMessaging
import ConformReport
import ConformRunner
import Foundation
import Testing

@Suite struct HTMLReporterMaskingTests {
    let masker = SecretMasker()

    @Test func authorizationKeepsTheSchemeAndAtMostFourCharacters() {
        #expect(masker.header(name: "Authorization", value: "App conform-app-code") == "App ••••code")
        #expect(masker.header(name: "authorization", value: "App short-key") == "App ••••")
        #expect(masker.header(name: "Authorization", value: "App tiny") == "App ••••")
        #expect(masker.header(name: "Authorization", value: "Bearer \(sampleJWT)") == "Bearer ••••")
        #expect(masker.header(name: "AUTHORIZATION", value: "bearer opaque-token-value") == "bearer ••••")
        #expect(masker.header(name: "Authorization", value: "rawsecretwithoutscheme") == "••••heme")
        #expect(masker.header(name: "Proxy-Authorization", value: "Basic dXNlcjpwYXNzd29yZA==") == "Basic ••••ZA==")
    }

    @Test func applicationCodesApiKeysAndCookiesAreHidden() {
        // The protocol's own credential headers are its profile's: a masker told them hides their whole value.
        let mobileMessaging = SecretMasker(codeHeaders: ProtocolProfile.mobileMessaging.credentialHeaderNames)
        #expect(mobileMessaging.header(name: "AppCode", value: "conform-app-code") == "••••code")
        #expect(mobileMessaging.header(name: "applicationcode", value: "conform-jwt-app-code") == "••••code")
        #expect(masker.header(name: "AppCode", value: "conform-app-code") == "conform-app-code", "not any protocol's")
        #expect(masker.header(name: "X-Api-Key", value: "conform-api-key") == "••••-key")
        #expect(masker.header(name: "x-auth-token", value: "abc") == "••••")
        #expect(masker.header(name: "Cookie", value: "session=abc123; theme=dark") == "session=••••; theme=••••")
        #expect(
            masker.header(name: "Set-Cookie", value: "sid=abcdef; Path=/; HttpOnly") == "sid=••••; Path=/; HttpOnly")
    }

    /// A session hands the profile's credential headers to the result, and every report's masker learns from it.
    @Test func aSessionsCredentialHeadersReachEveryReportsMasker() {
        let group = ResultGroup(kind: .deviceFlow, id: "flow d1", title: "d1", file: "t.jsonl")
        var step = StepResult(
            suiteID: group.id, flow: "d1", index: 0, name: "exchange 1", file: "t.jsonl", place: .record(seq: 1),
            spec: SpecReference(), verdict: .fail, check: .replayDifference)
        step.request = HTTPRequest(
            method: .get, url: "/mobile/1/appinstance/r1/user?x=secret-app-code-9876",
            headerFields: ["AppCode": "secret-app-code-9876"])
        let result = RunResult(
            command: .replay, suites: [SuiteResult(group: group, steps: [step], duration: 0)], duration: 0, target: "t")
        let session = Session(
            console: nil, credentialHeaders: ProtocolProfile.mobileMessaging.credentialHeaderNames)
        let masker = SecretMasker(learningFrom: session.stamped(result))
        #expect(masker.text("x=secret-app-code-9876") == "x=••••9876", "learned from the header, hidden in text")
        #expect(SecretMasker(learningFrom: result).text("x=secret-app-code-9876") == "x=secret-app-code-9876")
    }

    @Test func otherHeadersAreShownExceptForTokensInThem() {
        #expect(masker.header(name: "Content-Type", value: "application/json") == "application/json")
        #expect(masker.header(name: "pushregistrationid", value: "reg-1") == "reg-1")
        #expect(masker.header(name: "Location", value: "/x?t=\(sampleJWT)") == "/x?t=(JWT ••••)")
    }

    @Test func jwtLookingTokensAreHiddenInText() {
        #expect(masker.text("GET /a?token=\(sampleJWT)&x=1") == "GET /a?token=(JWT ••••)&x=1")
        #expect(masker.text("{\"t\":\"\(sampleJWT)\"}") == "{\"t\":\"(JWT ••••)\"}")
        #expect(masker.text("eyJust a word. eyJx.y.z and eyJ") == "eyJust a word. eyJx.y.z and eyJ")
        #expect(masker.text("unsigned eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.") == "unsigned (JWT ••••)")
    }

    @Test func secretsLearnedFromHeadersAreHiddenEverywhere() {
        let m = SecretMasker(secrets: ["conform-app-code", "short"])
        #expect(m.text("{\"from\":\"conform-app-code\"}") == "{\"from\":\"••••code\"}")
        #expect(m.text("short words stay") == "short words stay")
    }

    @Test func theReportShowsNoSecret() async throws {
        let page = try await renderCertification()
        for secret in [
            sampleJWT, "conform-app-code", "conform-api-key-0123456789", "abc123secretvalue", "eyJzdWIiOiJ1c2VyLTEifQ",
        ] {
            #expect(!page.contains(secret), "the report shows \(secret)")
        }
        #expect(page.contains("<th scope=\"row\">Authorization</th><td>Bearer ••••</td>"))
        #expect(page.contains("<th scope=\"row\">Authorization</th><td>App ••••code</td>"))
        #expect(page.contains("<th scope=\"row\">Set-Cookie</th><td>session=••••; Path=/; HttpOnly</td>"))
        #expect(page.contains("<th scope=\"row\">Cookie</th><td>session=••••; theme=••••</td>"))
        #expect(page.contains("&quot;from&quot;: &quot;••••code&quot;"))
        #expect(page.contains("&quot;token&quot;: &quot;(JWT ••••)&quot;"))
    }
}

@Suite struct HTMLReporterEscapingTests {
    static let hostile = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>&amp;"

    func hostileRun() -> RunResult {
        let h = Self.hostile
        var request = HTTPRequest(
            method: "POST", url: "/a?q=\(h)", headerFields: [h: h, "Content-Type": "text/plain"],
            body: Data("</pre>\(h)".utf8))
        request.timeout = nil
        let response = HTTPResponse(
            status: 500, headerFields: ["X-Note": h], body: Data([0x3C, 0x73, 0xC3, 0x28, 0xFF]))
        let failure = CheckFailure(
            severity: .assumed, decision: h, mismatches: [Mismatch(path: h, expected: h, actual: h, note: h)])
        let step = StepResult(
            suiteID: h, flow: h, index: 0, name: h + "\u{07}\u{1B}[31m", file: h, mark: .init(line: 3, column: 7),
            spec: SpecReference(section: h, decisions: [h]), verdict: .fail, request: request, response: response,
            failures: [failure], error: h
        )
        let suite = Suite(
            id: h, title: h, step: h, spec: SpecReference(section: h), profile: h, flows: [], file: h, contentHash: h)
        return RunResult(suites: [SuiteResult(suite: suite, steps: [step], duration: 0)], duration: 0, target: h)
    }

    @Test func everyTextIsEscaped() {
        let page = HTMLReporter(sink: MemorySink(), date: Self.hostile, deterministic: true).render(hostileRun())
        #expect(page.components(separatedBy: "<script").count == 2, "only the page's own script element")
        #expect(!page.contains("<img"))
        #expect(
            page.contains(
                "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;amp;"))
        #expect(!page.contains("\u{1B}"))
        #expect(!page.contains("\u{07}"))
        #expect(page.contains("\u{FFFD}\u{FFFD}[31m"))
    }

    @Test func anchorsAreSafeIdentifiers() {
        let page = HTMLReporter(sink: MemorySink(), date: "d", deterministic: true).render(hostileRun())
        let anchor = "suite--script-alert--x----script----img-src-x-onerror-alert-1---amp-"
        #expect(page.contains("id=\"\(anchor)\""))
        #expect(page.contains("href=\"#\(anchor)-step1\""))
    }

    @Test func nonUTF8BodiesAreDescribed() {
        let page = HTMLReporter(sink: MemorySink(), date: "d", deterministic: true).render(hostileRun())
        #expect(page.contains("<p class=\"binary\">(5 bytes, not UTF-8)</p>"))
    }

    @Test func hugeBodiesAreCut() {
        var run = hostileRun()
        run.suites[0].steps[0].response?.body = Data(String(repeating: "a", count: 200_000).utf8)
        let page = HTMLReporter(sink: MemorySink(), date: "d", deterministic: true).render(run)
        #expect(page.contains("(cut after 65536 characters; 200000 bytes in all)"))
        #expect(page.utf8.count < 120_000)
    }

    @Test func jsonBodiesArePrettyPrinted() {
        var run = hostileRun()
        run.suites[0].steps[0].response?.body = Data("{\"a\":[1,{\"b\":\"<i>\"}]}".utf8)
        let page = HTMLReporter(sink: MemorySink(), date: "d", deterministic: true).render(run)
        #expect(
            page.contains(
                "<pre class=\"body\">{\n  &quot;a&quot;: [\n    1,\n    {\n      &quot;b&quot;: &quot;&lt;i&gt;&quot;\n    }\n  ]\n}</pre>"
            ))
    }
}
