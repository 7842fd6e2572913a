import ConformCore
import ConformReport
import ConformRunner
import Foundation
import Synchronization
import Testing

/// An HTTPS target that announces an `http://` base URL (M12): the run warns once, naming it, and does not follow
/// it to cleartext.
@Suite struct CleartextBaseURLTests {
    /// Answers M12 with `baseUrl`, anything else with `{}`; counts the requests that went out in cleartext.
    final class Announcing: Transport {
        let baseUrl: String
        let cleartext = Atomic<Int>(0)
        init(baseUrl: String) { self.baseUrl = baseUrl }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if request.url.hasPrefix("http://") { cleartext.add(1, ordering: .relaxed) }
            if request.url.hasSuffix("/baseurl") { return .json(200, ["baseUrl": .string(baseUrl)]) }
            return .json(200, [:])
        }
    }

    static let yaml = """
        suite: clear
        title: a base URL in cleartext
        steps:
          - name: the mobile API names its base URL
            request: {url: "https://impl.test/mobile/1/baseurl"}
            capture: {baseUrl: $.baseUrl}
          - name: the installation is read under it
            request: {url: "{{ baseUrl }}/mobile/1/appinstance/1"}
          - name: and again
            request: {url: "{{ baseUrl }}/mobile/1/appinstance/2"}
        """

    func run(_ transport: Announcing) async throws -> RunResult {
        let plan = RunPlan(
            suites: [try suite(Self.yaml, file: "clear.yaml")], targetDefaults: ["mobile": "https://impl.test"],
            exchangeTimeout: .seconds(5), targetDescription: "https://impl.test")
        return await Runner(transport: transport).run(plan)
    }

    @Test func aCleartextBaseURLIsAWarningOnceAndIsNotFollowed() async throws {
        let transport = Announcing(baseUrl: "http://impl.test")
        let result = try await run(transport)
        #expect(result.steps.map(\.verdict) == [.pass, .error, .skipped])
        #expect(transport.cleartext.load(ordering: .relaxed) == 0)
        let notice =
            "the HTTPS target announced the cleartext base URL 'http://impl.test' (answering "
            + "https://impl.test/mobile/1/baseurl): the run does not follow it to cleartext, so the steps that would "
            + "go there are not sent; make the implementation announce an https:// URL, or pass --allow-host "
            + "impl.test to follow it anyway"
        #expect(result.notices == [RunNotice(notice, steps: 1)])
        #expect(
            result.steps[1].error
                == "clear.yaml:8:14: not sent: http://impl.test is a cleartext base URL the HTTPS target announced "
                + "(see the warning below the steps); pass --allow-host impl.test to follow it anyway")
        #expect(RunNotice(notice, steps: 1).line == "warning: \(notice) (1 step)")
    }

    @Test func anHTTPSBaseURLIsFollowedWithoutAWord() async throws {
        let transport = Announcing(baseUrl: "https://impl.test")
        let result = try await run(transport)
        #expect(result.steps.map(\.verdict) == [.pass, .pass, .pass])
        #expect(result.notices.isEmpty)
    }
}
