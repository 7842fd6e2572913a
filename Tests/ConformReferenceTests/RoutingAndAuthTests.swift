import ConformCore
import ConformReference
import Foundation
import Testing

@Suite struct RoutingAndAuthTests {
    let h = Harness()

    @Test func unknownPathIs404Envelope() {
        let r = h.mobile(.get, "/mobile/1/nothing")
        #expect(r.status == 404)
        #expect(r.messageId == "NOT_FOUND")
    }

    @Test func wrongMethodIs405WithAllow() {
        let r = h.mobile(.get, "/mobile/1/appinstance")
        #expect(r.status == 405)
        #expect(r.headerFields["Allow"] == "POST")
        #expect(r.messageId == "METHOD_NOT_ALLOWED")
    }

    @Test func routesByPathWhateverTheHost() {
        let id = h.register()
        for base in ["", "http://127.0.0.1:9", "https://mobile.infobip.com", "http://backend.conform.invalid"] {
            let r = h.send(.get, base + "/mobile/1/appinstance/\(id)", headers: ["Authorization": "App \(appCode)"])
            #expect(r.status == 200, "base \(base)")
        }
    }

    /// D15: every error has Content-Length and Content-Type application/json.
    @Test func errorsCarryLengthAndJSONType() {
        let responses = [
            h.mobile(.get, "/nope"), h.mobile(.get, "/mobile/1/appinstance"), h.mobile(.get, "/mobile/1/appinstance/x"),
            h.mobile(.get, "/mobile/1/appinstance/x", auth: "App wrong"),
            h.backend(.get, "/people/2/contactInformation/push/x"),
            h.mobile(.post, "/mobile/1/appinstance", rawBody: "{bad"),
        ]
        for r in responses {
            #expect(r.status.statusClass == 4)
            #expect(r.headerFields["Content-Type"] == "application/json")
            #expect(r.headerFields["Content-Length"] == String(r.body.count))
            #expect(r.body.count > 0)
        }
    }

    /// D11: wrong or missing credentials.
    @Test func mobileCredentials() {
        let id = h.register()
        #expect(h.mobile(.get, "/mobile/1/appinstance/\(id)", auth: "").status == 401)
        #expect(h.mobile(.get, "/mobile/1/appinstance/\(id)", auth: "App nope").messageId == "UNAUTHORIZED")
        let withKey = h.mobile(.get, "/mobile/1/appinstance/\(id)", auth: "App \(apiKey)")
        #expect(withKey.status == 401 && withKey.messageId == "UNAUTHORIZED")
        #expect(h.mobile(.get, "/mobile/1/appinstance/\(id)", auth: "Basic abc").status == 401)
        // Bearer only on user-data calls.
        #expect(h.mobile(.get, "/mobile/1/appinstance/\(id)", auth: "Bearer \(h.token("x"))").status == 401)
        // Scheme is case-insensitive.
        #expect(h.mobile(.get, "/mobile/1/appinstance/\(id)", auth: "app \(appCode)").status == 200)
    }

    /// D11: an application code never opens backend endpoints.
    @Test func backendCredentials() {
        let id = h.register()
        let path = "/people/2/contactInformation/push/\(id)"
        #expect(h.backend(.get, path).status == 200)
        let withCode = h.backend(.get, path, key: appCode)
        #expect(withCode.status == 401 && withCode.messageId == "UNAUTHORIZED")
        #expect(h.backend(.get, path, key: "nope").status == 401)
        #expect(h.push(to: ["externalUserId": "x"], key: appCode).status == 401)
        #expect(h.send(.get, backendBase + path, headers: ["AppCode": appCode]).status == 401)
    }

    /// §7.2: People endpoints need AppCode: 48001 when missing, 48012 when it is not the key's application.
    @Test func appCodeHeader() {
        let id = h.register()
        let path = "/people/2/contactInformation/push/\(id)"
        let missing = h.backend(.get, path, appCodeHeader: nil)
        #expect(missing.status == 400 && missing.json["errorCode"] == 48001)
        let other = h.backend(.get, path, appCodeHeader: jwtAppCode)
        #expect(other.status == 400 && other.json["errorCode"] == 48012)
    }

    @Test func installationsAreScopedToTheirApplication() {
        let id = h.register()
        let r = h.mobile(.get, "/mobile/1/appinstance/\(id)", code: jwtAppCode)
        #expect(r.status == 400 && r.messageId == "NO_REGISTRATION")
        #expect(
            h.backend(.get, "/people/2/contactInformation/push/\(id)", key: jwtAPIKey, appCodeHeader: jwtAppCode).json[
                "errorCode"] == 48013)
    }

    @Test func invalidJSONBodyIsRequestFormatInvalid() {
        let id = h.register()
        for body in ["{", "[1,", "\u{FF}", "nul"] {
            let r = h.mobile(.post, "/mobile/1/appinstance/\(id)/personalize", caller: id, rawBody: body)
            #expect(r.status == 400 && r.messageId == "REQUEST_FORMAT_INVALID", "body \(body)")
        }
        let array = h.mobile(.post, "/mobile/1/appinstance", rawBody: "[]")
        #expect(array.messageId == "REQUEST_FORMAT_INVALID")
    }

    @Test func hostileInputNeverCrashes() {
        let deep = String(repeating: "[", count: 10_000)
        #expect(h.mobile(.post, "/mobile/1/appinstance", rawBody: deep).status == 400)
        let bytes = HTTPRequest(
            method: "BREW", url: "::::", headerFields: ["Authorization": "App"], body: Data([0, 0xff]))
        #expect(h.reference.handle(bytes).status.statusClass == 4)
        #expect(
            h.send(.get, "/mobile/1/appinstance/%ZZ/user", headers: ["Authorization": "App \(appCode)"]).status == 400)
        #expect(h.reference.checkInvariants().isEmpty)
    }
}
