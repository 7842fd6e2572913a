import ConformCore
import ConformReference
import Testing

@Suite struct InstallationTests {
    let h = Harness()

    /// M1: a unique pushRegId owned by a fresh anonymous person.
    @Test(arguments: Dialect.allCases) func registrationCreatesAnonymousPerson(dialect: Dialect) {
        let r = h.mobile(
            .post, dialect == .android ? "/mobile/1/appinstance?ri=true" : "/mobile/1/appinstance?rt=1",
            body: ["pushServiceToken": "t1", "pushServiceType": "Firebase", "os": "Android", "regEnabled": true])
        #expect(r.status == 200)
        #expect(r.headerFields["Content-Type"] == "application/json")
        let id = r.json["pushRegId"]?.stringValue ?? ""
        #expect(!id.isEmpty)
        #expect(r.json["pushServiceToken"] == "t1")
        #expect(r.json["isPrimary"] == false)
        let other = h.register()
        #expect(other != id)
        let snapshot = h.reference.snapshot()
        #expect(snapshot.person(holding: id)?.externalUserId == nil)
        #expect(snapshot.person(holding: id)?.id != snapshot.person(holding: other)?.id)
    }

    /// M3 own installation, including what M1 stored.
    @Test func getInstallation() {
        let id = h.register(body: ["pushServiceType": "APNS", "os": "iOS", "deviceModel": "iPhone15,2"])
        let r = h.mobile(.get, "/mobile/1/appinstance/\(id)?rt=1", caller: id)
        #expect(r.status == 200)
        #expect(r.json["pushRegId"]?.stringValue == id)
        #expect(r.json["deviceModel"] == "iPhone15,2")
    }

    /// M2 own installation, in both dialects (D14): PATCH and POST + override.
    @Test(arguments: Dialect.allCases) func patchInstallation(dialect: Dialect) {
        let id = h.register()
        let r = h.mobile(
            .patch, "/mobile/1/appinstance/\(id)?rt=0", caller: id,
            body: ["pushServiceToken": "new-token", "customAttributes": ["DeviceType": "personal"], "appVersion": nil],
            dialect: dialect)
        #expect(r.status == 200)
        let got = h.mobile(.get, "/mobile/1/appinstance/\(id)", caller: id).json
        #expect(got["pushServiceToken"] == "new-token")
        #expect(got["customAttributes"]?["DeviceType"] == "personal")
        #expect(
            h.mobile(.patch, "/mobile/1/appinstance/\(id)", caller: id, body: ["regEnabled": "yes"]).messageId
                == "REQUEST_FORMAT_INVALID")
    }

    /// D14: a POST without the override on the installation path is not a PATCH.
    @Test func postWithoutOverrideIs405() {
        let id = h.register()
        #expect(h.mobile(.post, "/mobile/1/appinstance/\(id)", caller: id, body: [:]).status == 405)
    }

    /// M2 on another installation of the same person: header = own id, path = other id (§3.2).
    @Test func patchOtherInstallationOfSamePerson() {
        let user = freshUser()
        let a = h.register()
        let b = h.register(dialect: .ios)
        h.personalize(a, user)
        h.personalize(b, user)
        let r = h.setPrimary(b, true, caller: a)
        #expect(r.status == 200)
        #expect(h.reference.snapshot().installation(b)?.isPrimary == true)
    }

    /// The target must belong to the caller's person: otherwise 403 FORBIDDEN (our documented choice).
    @Test func otherPersonsInstallationIsForbidden() {
        let a = h.register()
        let b = h.register()
        h.personalize(a, freshUser())
        h.personalize(b, freshUser())
        let r = h.setPrimary(b, true, caller: a)
        #expect(r.status == 403 && r.messageId == "FORBIDDEN")
        #expect(h.depersonalize(b, caller: a).status == 403)
        #expect(h.reference.snapshot().installation(b)?.isPrimary == false)
    }

    /// D10 on the mobile API: unknown ids in the path or the header.
    @Test func unknownRegistration() {
        let id = h.register()
        for r in [
            h.mobile(.get, "/mobile/1/appinstance/nope", caller: "nope"),
            h.mobile(.get, "/mobile/1/appinstance/\(id)", caller: "nope"),
            h.personalize("nope", "u"), h.depersonalize("nope"), h.user("nope"),
        ] {
            #expect(r.status == 400 && r.messageId == "NO_REGISTRATION")
        }
    }

    /// M11 removes the registration; later calls get NO_REGISTRATION.
    @Test func deleteInstallation() {
        let id = h.register(dialect: .ios)
        #expect(h.mobile(.delete, "/mobile/1/appinstance/\(id)", caller: id).status == 200)
        #expect(h.mobile(.get, "/mobile/1/appinstance/\(id)").messageId == "NO_REGISTRATION")
        #expect(h.reference.checkInvariants().isEmpty)
    }

    /// M12 answers the origin the request came to.
    @Test func baseURL() {
        #expect(h.mobile(.get, "/mobile/1/baseurl").json["baseUrl"] == "http://mobile.conform.invalid")
        let r = h.send(
            .get, "/mobile/1/baseurl", headers: ["Authorization": "App \(appCode)", "Host": "127.0.0.1:8080"])
        #expect(r.json["baseUrl"] == "http://127.0.0.1:8080")
        #expect(h.mobile(.get, "/mobile/1/baseurl", auth: "App \(apiKey)").status == 401)
    }

    /// M1 with isPrimary in the body.
    @Test func registerAsPrimary() {
        let id = h.register(body: ["pushServiceType": "Firebase", "isPrimary": true])
        #expect(h.reference.snapshot().installation(id)?.isPrimary == true)
    }
}
