import ConformCore
import ConformReference
import Foundation
import Testing

/// The route table is the one list of endpoints: requests are classified by it, and every row answers.
@Suite struct RouteTableTests {
    @Test func theTableListsTheProtocolsEndpointsOnce() {
        let ids = ReferenceEndpoint.all.map(\.id)
        #expect(Set(ids).count == ids.count, "an API id appears twice")
        let mobile = (1...16).filter { $0 != 13 }.map { "M\($0)" }  // M13 (inbox) is out of scope
        #expect(ids == mobile + (1...8).map { "B\($0)" })
    }

    @Test func everyEndpointIsFoundFromItsOwnPattern() {
        for endpoint in ReferenceEndpoint.all {
            let path = endpoint.path.replacingOccurrences(of: "{id}", with: "some-id")
            #expect(ReferenceEndpoint.matching(method: endpoint.method, path: path) == endpoint, "\(endpoint)")
        }
        #expect(ReferenceEndpoint.matching(method: .put, path: "/mobile/1/appinstance/x") == nil)
        #expect(ReferenceEndpoint.matching(method: .get, path: "/mobile/1/appinstance/x/unknown") == nil)
        #expect(ReferenceEndpoint.matching(method: .get, path: "/mobile/1/appinstance/x%2Fy")?.id == "M3")
    }

    /// Plain ASCII paths are routed on their bytes, others through decoding: both find the same row and id.
    @Test func plainAndEscapedPathsRouteAlike() {
        let plain = ReferenceEndpoint.matching(method: .post, path: "//mobile/1/appinstance/abc//personalize/")
        #expect(plain?.id == "M4")
        #expect(ReferenceEndpoint.matching(method: .post, path: "/mobile/1/appinstance/%61bc/personalize")?.id == "M4")
        #expect(ReferenceEndpoint.matching(method: .post, path: "/mobile/1/%61ppinstance/abc/personalize")?.id == "M4")
        #expect(ReferenceEndpoint.matching(method: .post, path: "/mobile/1/appinstance/é/personalize")?.id == "M4")
        #expect(ReferenceEndpoint.matching(method: .post, path: "/mobile/1/appinstance/abc/personalizeX") == nil)
        #expect(ReferenceEndpoint.matching(method: .get, path: "/") == nil)
        #expect(ReferenceEndpoint.matching(method: .get, path: "") == nil)
        // The id is the decoded segment either way: a device registered under it is found by both spellings.
        let reference = ReferenceImplementation()
        let register = HTTPRequest(
            method: .post, url: "http://conform.invalid/mobile/1/appinstance",
            headerFields: ["Authorization": "App conform-app-code", "Content-Type": "application/json"],
            body: Data(#"{"pushServiceToken":"t","pushServiceType":"Firebase"}"#.utf8))
        let id = (try? JSONValue.parse(reference.handle(register).body))?["pushRegId"]?.stringValue ?? ""
        for spelling in [id, id.replacingOccurrences(of: "-", with: "%2D")] {
            let get = HTTPRequest(
                method: .get, url: "http://conform.invalid/mobile/1/appinstance/\(spelling)",
                headerFields: ["Authorization": "App conform-app-code", "pushregistrationid": id])
            let response = reference.handle(get)
            #expect(response.status.code == 200, "\(spelling): \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    /// No endpoint of the table falls through to the 404 of an unknown path, whatever it answers otherwise.
    @Test func theReferenceAnswersEveryEndpointOfTheTable() {
        let reference = ReferenceImplementation()
        for endpoint in ReferenceEndpoint.all {
            let url = "http://conform.invalid" + endpoint.path.replacingOccurrences(of: "{id}", with: "unknown")
            let response = reference.handle(HTTPRequest(method: endpoint.method, url: url))
            let messageId = (try? JSONValue.parse(response.body))?["requestError"]?["serviceException"]?["messageId"]
            #expect(messageId?.stringValue != "NOT_FOUND", "\(endpoint) answers NOT_FOUND")
            #expect(response.status.code != 405, "\(endpoint) answers 405")
        }
    }

    @Test func sessionTimesInBothDialects() {
        let valid = [
            "2026-01-05T10:00:00+0100", "2026-01-05T10:00:00+01:00", "2026-01-05T10:00:00Z",
            "2026-01-05T10:00:00.123-05:30",
        ]
        for text in valid { #expect(SessionTimeProbe.accepts(text), "\(text)") }
        let invalid = [
            "2026-01-05 10:00:00+0100", "2026-13-05T10:00:00Z", "2026-01-05T24:00:00Z", "2026-01-05T10:00:00",
            "2026-01-05T10:00:00+1", "2026-01-05T10:00:00+01:0", "{{ sessionStart }}", "2026-01-05T10:00:00.Z", "",
        ]
        for text in invalid { #expect(!SessionTimeProbe.accepts(text), "\(text)") }
    }
}

/// M9 through the reference, since the time parser is internal.
enum SessionTimeProbe {
    static func accepts(_ text: String) -> Bool {
        let h = Harness()
        let id = h.register()
        let body: JSONValue = ["sessionStarts": [.string(text)]]
        return h.mobile(.post, "/mobile/1/appinstance/\(id)/user/events/session", caller: id, body: body).status == 200
    }
}
