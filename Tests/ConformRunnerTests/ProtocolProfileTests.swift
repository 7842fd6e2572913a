import ConformCore
import ConformDiagnostics
import ConformMobileMessaging
import ConformRunner
import Foundation
import Testing

/// A second protocol, as small as a profile can be: one base, one template function, two application modes and
/// an envelope of its own. Suites loaded under it know these and nothing of Mobile Messaging's.
extension ProtocolProfile {
    static let tiny = ProtocolProfile(
        name: "Tiny", bases: [Base(name: "api", referenceURL: "http://api.tiny.invalid")],
        functions: [
            "stamp": TemplateFunction(summary: "the text 'stamped-' and its argument") { positional, _ in
                .string("stamped-" + (positional.first?.text ?? ""))
            }
        ],
        applicationModes: ["open", "sealed"],
        errorEnvelope: .nested(["fault"], code: "id", text: "reason"))
}

/// The engine knows no protocol: the bases and functions suites may use come from the profile it is handed.
@Suite struct ProtocolProfileTests {
    static let yaml = """
        suite: profiled
        title: one request to a base the suite does not declare
        steps:
          - name: register
            request: {method: POST, url: "{{ mobile }}/mobile/1/appinstance"}
            expect: {status: 200}
        """

    @Test func theBasesOfTheProfileAreNamesSuitesNeedNotDeclare() {
        let files = [(name: "profiled.yaml", contents: Optional(Data(Self.yaml.utf8)))]
        let mobileMessaging = LoadedSuites(files: files, profile: .mobileMessaging)
        #expect(mobileMessaging.problemCount == 0)
        #expect(mobileMessaging.suites.map(\.id) == ["profiled"])
        let bare = LoadedSuites(files: files, profile: .none)
        #expect(bare.problemCount == 1)
        #expect(bare.problems.map(\.diagnostic.id) == [.suiteUndeclaredName])
        #expect(bare.problems.first?.diagnostic.mark == SourceMark(line: 5, column: 34))
        #expect(bare.problems.first?.sourceLine?.contains("{{ mobile }}") == true)
        #expect(
            bare.notRun?.message == "1 problem in the suites; nothing was run"
                && bare.notRun?.id == .runNotStarted)
        #expect(LoadedSuites(files: files, profile: .mobileMessaging).notRun == nil)
        #expect(bare.renderedProblems().rendered.contains("mobile"))
        #expect(bare.suites.isEmpty)
    }

    @Test func mobileMessagingDeclaresItsTwoBasesAndTheJWTFunction() {
        let profile = ProtocolProfile.mobileMessaging
        #expect(profile.bases.map(\.name) == ["mobile", "backend"])
        #expect(profile.baseNames == ["mobile", "backend"])
        #expect(
            profile.baseURLs(all: "http://127.0.0.1:9") == [
                "mobile": "http://127.0.0.1:9", "backend": "http://127.0.0.1:9",
            ])
        #expect(
            profile.referenceBaseURLs == [
                "mobile": "http://mobile.conform.invalid", "backend": "http://backend.conform.invalid",
            ])
        #expect(profile.functions.keys.sorted() == ["jwt"])
        #expect(profile.applicationModes == ["all", "jwt", "restricted", "restricted-access"])
        #expect(ProtocolProfile.none.bases.isEmpty && ProtocolProfile.none.functions.isEmpty)
        #expect(ProtocolProfile.none.applicationModes == [ProtocolProfile.anyApplication])
    }

    static let tinyYAML = """
        suite: tiny
        title: a suite of the tiny protocol
        profile: sealed
        vars: {who: "{{ stamp 7 }}"}
        steps:
          - name: greet
            request: {method: POST, url: "{{ api }}/hello", json: {who: "{{ who }}"}}
            expect: {status: 200}
        """

    func load(_ yaml: String, _ profile: ProtocolProfile) -> LoadedSuites {
        LoadedSuites(files: [(name: "s.yaml", contents: Optional(Data(yaml.utf8)))], profile: profile)
    }

    @Test func aSuiteLoadedUnderAnotherProfileKnowsItsBaseFunctionAndModes() throws {
        let tiny = load(Self.tinyYAML, .tiny)
        #expect(tiny.problems == [])
        #expect(tiny.suites.first?.profile == "sealed")
        // A suite that names no mode gets the profile's first.
        let plain = load(Self.tinyYAML.replacingOccurrences(of: "profile: sealed\n", with: ""), .tiny)
        #expect(plain.suites.first?.profile == "open")
        // Under Mobile Messaging the same suite names a base, a function and a mode that protocol does not have.
        let other = load(Self.tinyYAML, .mobileMessaging)
        #expect(other.problemCount == 3)
        #expect(other.renderedProblems().rendered.contains("s.yaml:3:10: error: unknown profile 'sealed'"))
        #expect(other.renderedProblems().rendered.contains("help: use one of: all, jwt, restricted, restricted-access"))
        #expect(other.renderedProblems().rendered.contains("'stamp' is not a function"))
        #expect(other.renderedProblems().rendered.contains("'api' is not defined"))
    }

    @Test func aSuiteOfAnotherProfileCannotCallMobileMessagingsFunctionOrModes() {
        let yaml = """
            suite: mm
            title: Mobile Messaging's function and mode under another profile
            profile: jwt
            vars: {who: ana, key: "00", token: "{{ jwt sub=who secret=key }}"}
            steps:
              - name: greet
                request: {method: GET, url: "{{ api }}/hello", headers: {Authorization: "Bearer {{ token }}"}}
                expect: {status: 200}
            """
        let tiny = load(yaml, .tiny)
        #expect(tiny.problemCount == 2)
        #expect(tiny.renderedProblems().rendered.contains("s.yaml:3:10: error: unknown profile 'jwt'"))
        #expect(tiny.renderedProblems().rendered.contains("help: use one of: open, sealed"))
        #expect(tiny.renderedProblems().rendered.contains("'jwt' is not a function"))
        #expect(load(yaml.replacingOccurrences(of: "{{ api }}", with: "{{ mobile }}"), .mobileMessaging).problems == [])
    }

    @Test func theMockOfAnotherProfileAnswersWithItsFunctionAndRefusesInItsEnvelope() throws {
        let suite = try #require(load(Self.tinyYAML, .tiny).suites.first)
        let mock = SuiteMock(suites: [suite], profile: .tiny)
        let wrong = mock.handle(HTTPRequest(method: .get, url: "/nowhere"))
        #expect(wrong.status == 404)
        let body = try JSONValue.parse(wrong.body)
        #expect(ProtocolProfile.tiny.errorEnvelope.read(body)?.code == "CONFORM_MOCK_NO_MATCH")
        #expect(body["requestError"] == nil)
        let answer = mock.handle(
            HTTPRequest(
                method: .post, url: "/hello", headerFields: ["Content-Type": "application/json"],
                body: Data(#"{"who":"stamped-7"}"#.utf8)))
        #expect(answer.status == 200)
        let report = mock.report()
        #expect(report.matched.map(\.step) == ["1. greet"])
        #expect(report.unmatched.map(\.request.url) == ["/nowhere"] && report.pending.isEmpty)
    }

    @Test func theMockSendsOriginFormURLsForEveryBaseOfItsProfile() throws {
        let suite = try #require(
            LoadedSuites(files: [("profiled.yaml", Data(Self.yaml.utf8))], profile: .mobileMessaging).suites.first)
        let mock = SuiteMock(suites: [suite], profile: .mobileMessaging)
        let answer = mock.handle(HTTPRequest(method: .post, url: "/mobile/1/appinstance"))
        #expect(answer.status == 200)
        #expect(mock.report().complete)
    }
}
