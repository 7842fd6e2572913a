import ConformCore
import ConformMobileMessaging
import ConformReference
import ConformTestSupport
import Foundation
import Testing

@testable import ConformFlowCheck
@testable import ConformProxy
@testable import ConformTraffic

/// A second protocol, as small as the traffic tools need: two bases, one endpoint, its own places of secrets and its
/// own envelope. Redaction, the secret scan, the flow checker and the recording proxy follow it, not Mobile
/// Messaging.
extension ProtocolProfile {
    static let tinyTraffic = ProtocolProfile(
        name: "Tiny",
        bases: [Base(name: "api", referenceURL: "", pathPrefixes: ["/api/"]), Base(name: "admin", referenceURL: "")],
        errorEnvelope: .nested(["fault"], code: "id", text: "reason"),
        endpoints: ProtocolProfile.EndpointCatalogue { request in
            request.path == "/api/ping" ? Endpoint(id: "T1", base: "api", traits: [.needsRegistration]) : nil
        },
        redaction: RedactionKeys(
            credentialSchemes: ["Tiny"], credentialHeaders: ["X-Tiny-Key"], credentialClaims: ["tiny-key"],
            phoneFields: ["tel"], tokenFields: ["seed"], publicValues: ["tiny-public-key"]))
}

@Suite struct ProtocolProfileTrafficTests {
    static let request = HTTPRequest(
        method: .post, url: "/api/ping",
        headerFields: [
            "X-Tiny-Key": "tk-live-123456", "AppCode": "mm-code-123456", "Authorization": "Tiny tk-live-123456",
            "Content-Type": "application/json",
        ],
        body: Data(#"{"seed":"seed-value-123456","pushServiceToken":"fcm-token-123456","tel":"385911234567"}"#.utf8))

    func redacted(_ profile: ProtocolProfile) throws -> (HTTPRequest, JSONValue) {
        let out = testRedactor(RedactionPolicy(profile: profile)).redact(Self.request)
        return (out, try JSONValue.parse(out.body))
    }

    @Test func aRedactionWithAnotherProfileRedactsItsKeysAndNotMobileMessagings() throws {
        let (tiny, tinyBody) = try redacted(.tinyTraffic)
        #expect(tiny.headerFields["X-Tiny-Key"]?.hasPrefix("redacted-") == true)
        #expect(tiny.headerFields["Authorization"] == "Tiny " + (tiny.headerFields["X-Tiny-Key"] ?? ""))
        #expect(tinyBody["seed"]?.stringValue?.hasPrefix("redacted-token-") == true)
        #expect(tinyBody["tel"]?.stringValue?.hasPrefix(Pseudonymizer.phonePrefix) == true)
        #expect(tiny.headerFields["AppCode"] == "mm-code-123456")
        #expect(tinyBody["pushServiceToken"]?.stringValue == "fcm-token-123456")

        let (mm, mmBody) = try redacted(.mobileMessaging)
        #expect(mm.headerFields["AppCode"]?.hasPrefix("redacted-") == true)
        #expect(mmBody["pushServiceToken"]?.stringValue?.hasPrefix("redacted-token-") == true)
        #expect(mm.headerFields["X-Tiny-Key"] == "tk-live-123456")
        #expect(mmBody["seed"]?.stringValue == "seed-value-123456")
    }

    @Test func theProfilesPublicValuesAreKept() {
        var request = Self.request
        request.headerFields["X-Tiny-Key"] = "tiny-public-key"
        let out = testRedactor(RedactionPolicy(profile: .tinyTraffic)).redact(request)
        #expect(out.headerFields["X-Tiny-Key"] == "tiny-public-key")
        #expect(RedactionPolicy(profile: .tinyTraffic).keep == ["tiny-public-key"])
        #expect(!RedactionPolicy(profile: .tinyTraffic).keep.contains("conform-app-code"))
    }

    @Test func theScanLooksForTheProfilesMembers() {
        let line = #"{"seed":"seed-value-123456","pushServiceToken":"fcm-token-123456"}"#
        let tiny = SecretScanner(profile: .tinyTraffic).scan(text: line, file: "f")
        #expect(tiny.map(\.column) == [10])
        #expect(tiny.map(\.kind) == [.pushToken])
        let mm = SecretScanner(profile: .mobileMessaging).scan(text: line, file: "f")
        #expect(mm.map(\.column) == [49])
    }

    @Test func theFlowCheckerClassifiesWithTheProfilesCatalogue() {
        // M4 before any registration breaks Mobile Messaging's registration-first rule; the tiny protocol has no M4.
        let personalize = exchange(
            url: "http://m/mobile/1/appinstance/reg-1/personalize", headers: ["Authorization": "App code-1"],
            body: #"{"userIdentity":{"externalUserId":"u"}}"#)
        #expect(
            FlowChecker.check([personalize], configuration: FlowCheckConfiguration(profile: .mobileMessaging)).map(
                \.rule) == [.registrationFirst])
        #expect(FlowChecker.check([personalize], configuration: FlowCheckConfiguration(profile: .tinyTraffic)) == [])
        #expect(ProtocolProfile.tinyTraffic.endpoints.classify(HTTPRequest(method: .get, url: "/api/ping"))?.id == "T1")
        #expect(MobileMessaging.endpoints.classify(HTTPRequest(method: .get, url: "/api/ping")) == nil)
    }

    @Test func theProxyRoutesByTheProfilesBasesAndRefusesInItsEnvelope() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir)
        defer { writer.close() }
        let proxy = RecordingProxy(
            upstreams: ["api": "http://a", "admin": "http://b"],
            transport: InProcessTransport(ReferenceImplementation()),
            writer: writer, profile: .tinyTraffic)
        #expect(proxy.upstreamName(for: "/api/ping") == "api")
        #expect(proxy.upstreamName(for: "/mobile/1/appinstance") == "admin")
        let refused = await proxy.forward(HTTPRequest(method: .get, url: "http://elsewhere/api/ping"))
        #expect(refused.status == 400)
        let body = try JSONValue.parse(refused.body)
        #expect(ProtocolProfile.tinyTraffic.errorEnvelope.read(body)?.code == "BAD_REQUEST_TARGET")
        #expect(body["requestError"] == nil)
    }
}
