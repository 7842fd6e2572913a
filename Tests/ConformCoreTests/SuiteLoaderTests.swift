import ConformCore
import ConformYAML
import Testing

@Suite struct SuiteLoaderTests {
    let loader = SuiteLoader(predefinedNames: ["mobile", "backend"])

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
        #expect(e.eventually == Eventually(timeout: .seconds(2), interval: .milliseconds(50)))
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

    @Test func yamlErrorsComeThroughWithPositions() {
        let rendered = problems("suite: s\ntitle: t\nsteps: [a, b\nx: 1\n")
        #expect(rendered.hasPrefix("suite.yaml:4:2: error:"))
    }

    @Test func duplicateKeysAreErrors() {
        let rendered = problems("suite: s\ntitle: t\nsuite: u\nsteps: []\n")
        #expect(rendered.contains("suite.yaml:3:1: error: duplicate key 'suite'"))
    }
}
