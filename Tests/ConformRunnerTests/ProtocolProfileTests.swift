import ConformCore
import ConformMobileMessaging
import ConformRunner
import Foundation
import Testing

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
        #expect(bare.problems.contains("mobile"))
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
        #expect(ProtocolProfile.none.bases.isEmpty && ProtocolProfile.none.functions.isEmpty)
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
