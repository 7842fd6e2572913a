import ConformCore
import ConformDiagnostics
import ConformMobileMessaging
import ConformYAML
import Testing

@Suite struct SuiteLoaderTests {
    let loader = SuiteLoader(profile: .mobileMessaging)

    func load(_ text: String) throws(YAMLParseFailure) -> Suite {
        try loader.load(bytes: Array(text.utf8), file: "suite.yaml")
    }

    /// Every diagnostic, rendered as `conform validate` prints it.
    func problems(_ text: String) -> String {
        do {
            _ = try load(text)
            return ""
        } catch {
            return error.diagnostics.map { $0.rendered(source: text) }.joined(separator: "\n")
        }
    }

    @Test func loadsAFullSuite() throws {
        let suite = try load(
            """
            suite: s1
            title: T
            step: 2-login
            spec: {section: "flow step 2", decisions: [D2, D3]}
            profile: jwt
            vars:
              user: "u-{{ uuid }}"
            flows:
              phone:
                - name: register
                  request:
                    method: POST
                    url: "{{ mobile }}/mobile/1/appinstance"
                    query: {ri: "true"}
                    headers: {Authorization: App x}
                    json: {a: 1, b: [yes, null]}
                  expect:
                    status: [200, 201]
                    json: {pushRegId: {$type: string, $length: {$gte: 1}}, gone: $absent}
                  should: {headers: {Content-Type: {$regex: json}}}
                  assume: {D1: {status: 4xx}}
                  capture: {reg: $.pushRegId, trace: {header: X-Trace}}
                  emits: registrationUpdated
                  eventually: {timeout: 2s, interval: 50ms}
              tablet:
                - wait: {event: registrationUpdated, flow: phone, timeout: 3s}
                - name: use it
                  request: {url: "{{ mobile }}/x/{{ reg }}"}
            """)
        #expect(suite.id == "s1")
        #expect(suite.spec == SpecReference(section: "flow step 2", decisions: ["D2", "D3"]))
        #expect(suite.profile == "jwt")
        #expect(suite.flows.map(\.name) == ["phone", "tablet"])
        guard case .exchange(let e) = suite.flows[0].steps[0].action else { Issue.record("not an exchange"); return }
        #expect(e.checks.map(\.severity) == [.must, .should, .assumed])
        #expect(e.checks[2].decision == "D1")
        #expect(e.checks[0].expectation.status == .oneOf([.literal(.int(200)), .literal(.int(201))]))
        #expect(e.captures.map(\.name) == ["reg", "trace"])
        #expect(e.eventually?.timeout == .seconds(2))
        #expect(e.eventually?.interval == .milliseconds(50))
        #expect(e.emits == "registrationUpdated")
        if case .json(let body)? = e.request.body {
            // `yes` is text under the YAML 1.2 core schema.
            #expect(try body.render(in: TemplateScope()) == ["a": 1, "b": ["yes", .null]])
        } else {
            Issue.record("no JSON body")
        }
        #expect(
            suite.flows[1].steps[0].action
                == .wait(WaitSpec(event: "registrationUpdated", flow: "phone", timeout: .seconds(3))))
        #expect(suite.flows[0].steps[0].mark == SourceMark(line: 10, column: 7))
    }

    @Test func unknownKeysSuggestTheClosest() {
        #expect(
            problems(
                """
                suite: s
                title: t
                steps:
                  - name: a
                    reqest: {url: "/"}
                """) == """
                    suite.yaml:4:5: error: step 'a' has no 'request'
                        4 |   - name: a
                          |     ^
                    help: add 'request:' with method and url, or make it a 'wait:' step
                    suite.yaml:5:5: error: unknown key 'reqest' in a step
                        5 |     reqest: {url: "/"}
                          |     ^
                    help: did you mean 'request'?
                    """)
    }

    @Test func reportsEveryProblemInTheFile() {
        let text = """
            suite: s
            title: t
            profile: admin
            steps:
              - name: a
                request: {url: "{{ mobile }}/{{ regId }}"}
                expect:
                  status: 2xy
                  json: {a: {$regx: x}, b: {$type: strng}}
                capture: {r: pushRegId}
            """
        let rendered = problems(text)
        let messages = rendered.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(
            messages == [
                "suite.yaml:3:10: error: unknown profile 'admin'",
                "suite.yaml:6:20: error: 'regId' is not defined",
                "suite.yaml:8:15: error: '2xy' is not a status",
                "suite.yaml:9:18: error: unknown matcher '$regx'",
                "suite.yaml:9:40: error: unknown type 'strng'",
                "suite.yaml:10:18: error: 'pushRegId' is not a JSON path",
            ])
        #expect(rendered.contains("help: did you mean '$regex'?"))
        #expect(rendered.contains("help: did you mean 'string'?"))
    }

    @Test func wrongTypesAndMissingKeys() {
        let rendered = problems(
            """
            title: [a]
            steps: {name: x}
            """)
        #expect(rendered.contains("suite.yaml:1:1: error: missing required key 'suite'"))
        #expect(rendered.contains("suite.yaml:1:8: error: title must be text, found a list"))
        #expect(rendered.contains("suite.yaml:2:8: error: the steps of flow 'main' must be a list, found a mapping"))
    }

    @Test func aMissingKeyHasItsOwnID() {
        func ids(_ text: String) -> [DiagnosticID] {
            do {
                _ = try loader.load(bytes: Array(text.utf8), file: "suite.yaml")
                return []
            } catch {
                return error.diagnostics.map(\.id)
            }
        }
        let step = "steps:\n  - name: a\n    request: {url: /}\n"
        #expect(ids("title: t\n" + step) == [.yamlMissingKey])
        #expect(ids("suite: s\ntitle: t\nsteps:\n  - request: {url: /}\n") == [.yamlMissingKey])
        #expect(ids("suite: s\ntitle: t\nsteps:\n  - name: a\n") == [.yamlMissingKey])
        #expect(ids("suite: s\ntitle: [t]\n" + step) == [.yamlWrongType])
    }

    @Test func yamlErrorsComeThroughWithPositions() {
        let rendered = problems("suite: s\ntitle: t\nsteps: [a, b\nx: 1\n")
        #expect(rendered.hasPrefix("suite.yaml:4:2: error:"))
    }

    @Test func tagsAreWordsListedOnce() throws {
        let steps = "steps:\n  - name: a\n    request: {method: GET, url: /x}\n    expect: {status: 200}\n"
        #expect(
            try load("suite: s\ntitle: t\ntags: [smoke, mobile-api, d10]\n" + steps).tags == [
                "smoke", "mobile-api", "d10",
            ])
        let rendered = problems("suite: s\ntitle: t\ntags: [Smoke, login, login, -x]\n" + steps)
        #expect(rendered.contains("suite.yaml:3:8: error: invalid tag 'Smoke'"))
        #expect(rendered.contains("suite.yaml:3:22: error: tag 'login' is listed twice"))
        #expect(rendered.contains("suite.yaml:3:29: error: invalid tag '-x'"))
        #expect(
            problems("suite: s\ntitle: t\ntags: smoke\n" + steps).contains("suite.yaml:3:7: error: tags must be a list")
        )
    }

    @Test func duplicateKeysAreErrors() {
        let rendered = problems("suite: s\ntitle: t\nsuite: u\nsteps: []\n")
        #expect(rendered.contains("suite.yaml:3:1: error: duplicate key 'suite'"))
    }
}

@Suite struct ControlAndWindowLoadingTests {
    let loader = SuiteLoader(profile: .mobileMessaging)

    func problems(_ text: String) -> String {
        do {
            _ = try loader.load(bytes: Array(text.utf8), file: "suite.yaml")
            return ""
        } catch {
            return error.diagnostics.map { $0.rendered(source: text) }.joined(separator: "\n")
        }
    }

    func step(_ body: String) -> String {
        "suite: s\ntitle: t\nsteps:\n  - name: x\n    request: {url: /m}\n" + body
    }

    @Test func noneIsAMatcherInBothSpellings() throws {
        let s = try loader.load(
            bytes: Array(step("    expect: {json: {a: $none, b: {$none: true}}}\n").utf8), file: "suite.yaml")
        guard case .exchange(let e) = s.flows[0].steps[0].action,
            case .json(.object(let fields, _))? = e.checks[0].expectation.body
        else {
            Issue.record("no JSON expectation")
            return
        }
        #expect(fields.map(\.value) == [.noValue, .noValue])
    }

    @Test func untilNeedsChecksAndGetsTheDefaultWindow() throws {
        #expect(
            problems(step("    until: {status: 200}\n")).contains(
                "suite.yaml:6:12: error: step 'x' has 'until' but nothing to check until then"))
        let s = try loader.load(
            bytes: Array(step("    until: {status: 200}\n    expect: {status: 200}\n").utf8), file: "suite.yaml")
        guard case .exchange(let e) = s.flows[0].steps[0].action else {
            Issue.record("the step is not an exchange")
            return
        }
        #expect(e.until != nil)
        #expect(e.eventually?.timeout == .seconds(5))
    }

    @Test func windowsOutsideTheirRangeAreRefusedAtTheirPosition() {
        #expect(
            problems(step("    eventually: {timeout: .inf}\n")).contains(
                "suite.yaml:6:27: error: timeout must be a duration from 0 to 24h"))
        #expect(
            problems(step("    eventually: {timeout: 1e300s}\n")).contains(
                "suite.yaml:6:27: error: timeout must be a duration from 0 to 24h"))
        #expect(problems(step("    eventually: {timeout: -5}\n")).contains("timeout must be a duration"))
        #expect(
            problems(step("    eventually: {interval: 0ms}\n")).contains(
                "suite.yaml:6:28: error: interval must be at least 10ms"))
        #expect(
            problems(step("    eventually: {timeout: 100ms, interval: 1s}\n")).contains(
                "timeout 100ms is shorter than the interval 1s"))
        #expect(problems(step("    eventually: {timeout: \"{{ mobile }}\"}\n")) == "")
    }

    @Test func durationTextParsesUnitsAndRefusesTheRest() {
        #expect(DurationText.parse("10s") == .seconds(10))
        #expect(DurationText.parse("250ms") == .milliseconds(250))
        #expect(DurationText.parse("1.5") == .milliseconds(1500))
        #expect(DurationText.parse("2m") == .seconds(120))
        for bad in ["", "inf", "nan", "-1s", "1e300", "25h", "9223372036854775807s", "soon"] {
            #expect(DurationText.parse(bad) == nil, "\(bad)")
        }
        #expect(DurationText.format(.milliseconds(1500)) == "1.5s")
        #expect(DurationText.format(.seconds(10)) == "10s")
        #expect(DurationText.format(.milliseconds(200)) == "200ms")
    }
}

@Suite struct RequestSyntaxLoadingTests {
    func problems(_ request: String) -> String {
        let text = "suite: s\ntitle: t\nsteps:\n  - name: x\n    request: \(request)\n"
        do {
            _ = try SuiteLoader().load(bytes: Array(text.utf8), file: "suite.yaml")
            return ""
        } catch {
            return error.diagnostics.map { $0.rendered(source: text) }.joined(separator: "\n")
        }
    }

    @Test func methodsAndHeaderNamesMustBeTokens() {
        #expect(
            problems(#"{url: /m, method: "GET /x HTTP/1.1\r\nHost: y"}"#).contains("suite.yaml:5:32: error: method"))
        #expect(problems(#"{url: /m, method: "GET /x HTTP/1.1\r\nHost: y"}"#).contains("is not an HTTP token"))
        #expect(
            problems(#"{url: /m, headers: {"X-A\nX-B": v}}"#).contains("header name 'X-A\\nX-B' is not an HTTP token"))
        #expect(problems(#"{url: /m, method: PATCH, headers: {X-Request-Id: v}}"#) == "")
        #expect(problems(#"{url: /m, method: "{{ verb }}"}"#).contains("'verb' is not defined"))
    }
}

/// Suite problems carry the ids the YAML reader and the loader declare: the kind of problem is data, not only words.
@Suite struct SuiteLoaderDiagnosticIDTests {
    @Test func unknownKeysWrongTypesAndUndefinedNamesHaveTheirIds() {
        let text = """
            suite: s
            title: t
            profil: all
            steps:
              - name: a
                request: {url: "{{ nowhere }}"}
            """
        do {
            _ = try SuiteLoader().load(bytes: Array(text.utf8), file: "s.yaml")
            Issue.record("expected a failure")
        } catch {
            let ids = Dictionary(error.diagnostics.map { ($0.message, $0.id) }, uniquingKeysWith: { a, _ in a })
            #expect(ids["unknown key 'profil' in a suite"] == .yamlUnknownKey)
            #expect(ids["'nowhere' is not defined"] == .suiteUndeclaredName)
            #expect(error.diagnostics.allSatisfy { (DiagnosticID.yamlIDs + DiagnosticID.suiteIDs).contains($0.id) })
        }
    }

    @Test func yamlProblemsHaveTheirIds() {
        do {
            _ = try SuiteLoader().load(bytes: Array("a: 1\na: 2\n".utf8), file: "s.yaml")
            Issue.record("expected a failure")
        } catch {
            #expect(error.diagnostics.map(\.id) == [.yamlDuplicateKey])
        }
        do {
            _ = try SuiteLoader().load(bytes: Array("a: [1, 2\n".utf8), file: "s.yaml")
            Issue.record("expected a failure")
        } catch {
            #expect(error.diagnostics.map(\.id) == [.yamlSyntax])
        }
    }
}
