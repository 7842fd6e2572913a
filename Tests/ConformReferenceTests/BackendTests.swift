import ConformCore
import ConformReference
import Testing

@Suite struct BackendTests {
    let h = Harness()

    /// B1: PushApiInstance with backend names.
    @Test func getPushInstance() {
        let id = h.register(body: [
            "pushServiceType": "Firebase", "os": "Android", "language": "en", "customAttributes": ["k": "v"],
        ])
        let r = h.backend(.get, "/people/2/contactInformation/push/\(id)")
        #expect(r.status == 200)
        #expect(r.json["registrationId"]?.stringValue == id)
        #expect(r.json["applicationId"] == "default")
        #expect(r.json["systemData"]?["cloudType"] == "GCM")
        #expect(r.json["systemData"]?["osLanguage"] == "en")
        #expect(r.json["additionalData"] == ["k": "v"])
    }

    /// B2: isPrimary (exclusive, D6), registrationEnabled, additionalData.
    @Test func patchPushInstance() {
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user, primary: true)
        h.personalize(b, user)
        let r = h.backend(
            .patch, "/people/2/contactInformation/push/\(b)",
            body: [
                "isPrimary": true, "systemData": ["registrationEnabled": false],
                "additionalData": ["discountApplied": false],
            ])
        #expect(r.status == 200)
        #expect(r.json["isPrimary"] == true)
        #expect(r.json["systemData"]?["registrationEnabled"] == false)
        #expect(r.json["additionalData"]?["discountApplied"] == false)
        #expect(h.reference.snapshot().installation(a)?.isPrimary == false)
        #expect(
            h.backend(.patch, "/people/2/contactInformation/push/\(b)", body: ["isPrimary": "yes"]).messageId
                == "BAD_REQUEST")
    }

    /// B3 and B4: the server-side flow, same semantics as the mobile one (D2, D4, D5).
    @Test func personalizeAndDepersonalize() {
        let id = h.register()
        let user = freshUser()
        let path = "/people/2/contactInformation/push/\(id)"
        let r = h.backend(
            .post, path + "/personalize?forceDepersonalize=false&setDeviceAsPrimary=true&returnPush=true",
            body: [
                "identity": ["externalId": .string(user), "email": "ana@example.com", "phoneNumber": "79810000000"],
                "attributes": [
                    "firstName": "Ana", "gender": "FEMALE", "birthday": "1990-05-01T00:00:00Z",
                    "tags": ["Personalized"],
                ],
            ])
        #expect(r.status == 200)
        #expect(r.json["externalId"]?.stringValue == user)
        #expect(r.json["gender"] == "FEMALE")
        #expect(r.json["contactInformation"]?["emails"]?[0]?["address"] == "ana@example.com")
        #expect(r.json["contactInformation"]?["push"]?[0]?["registrationId"]?.stringValue == id)
        #expect(h.user(id).json["gender"] == "Female")
        #expect(h.user(id).json["birthday"] == "1990-05-01")
        #expect(h.reference.snapshot().installation(id)?.isPrimary == true)
        let conflict = h.backend(.post, path + "/personalize", body: ["identity": ["externalId": "other"]])
        #expect(conflict.status == 400 && conflict.messageId == "USER_MERGE_INTERRUPTED")
        #expect(
            h.backend(.post, path + "/personalize?forceDepersonalize=1", body: ["identity": ["externalId": "other"]])
                .status == 200)
        let dep = h.backend(.post, path + "/depersonalize")
        #expect(dep.status == 200 && dep.body.isEmpty)
        #expect(h.externalUserId(of: id) == nil)
    }

    @Test func personalizeValidation() {
        let id = h.register()
        let path = "/people/2/contactInformation/push/\(id)/personalize"
        #expect(h.backend(.post, path, body: [:]).messageId == "USER_IDENTITY_INVALID")
        #expect(h.backend(.post, path, body: ["identity": ["externalId": "null"]]).messageId == "USER_IDENTITY_INVALID")
        #expect(h.backend(.post, path, body: ["identity": ["email": "bad"]]).messageId == "EMAIL_INVALID")
        #expect(h.backend(.post, path, body: ["identity": ["phoneNumber": "+1"]]).messageId == "PHONE_INVALID")
    }

    /// D10 on the backend: 400 errorCode 48013.
    @Test func unknownRegistration() {
        for (method, suffix) in [
            (HTTPMethod.get, ""), (.patch, ""), (.post, "/personalize"), (.post, "/depersonalize"),
        ] {
            let r = h.backend(
                method, "/people/2/contactInformation/push/unknown-id\(suffix)", body: ["identity": ["externalId": "x"]]
            )
            #expect(r.status == 400)
            #expect(r.json == ["errorCode": 48013, "errorMessage": "Push registration not found"])
        }
    }

    /// B5: person by externalUserId with its installations.
    @Test func getPerson() {
        let user = freshUser()
        let a = h.register()
        let b = h.register()
        h.personalize(a, user)
        h.personalize(
            b, body: ["userIdentity": ["externalUserId": .string(user), "emails": [["address": "p@example.com"]]]])
        let r = h.backend(.get, "/people/2/persons?identifier=\(user)&type=EXTERNAL_ID", appCodeHeader: nil)
        #expect(r.status == 200)
        #expect(r.json["externalId"]?.stringValue == user)
        #expect(
            r.json["contactInformation"]?["push"]?.arrayValue?.compactMap { $0["registrationId"]?.stringValue } == [
                a, b,
            ])
        #expect(
            h.backend(.get, "/people/2/persons?identifier=p%40example.com&type=EMAIL", appCodeHeader: nil).json[
                "externalId"]?.stringValue == user)
        let missing = h.backend(.get, "/people/2/persons?identifier=nobody&type=EXTERNAL_ID", appCodeHeader: nil)
        #expect(missing.status == 404 && missing.messageId == "NOT_FOUND")
        #expect(h.backend(.get, "/people/2/persons", appCodeHeader: nil).status == 400)
        #expect(h.backend(.get, "/people/2/persons?identifier=x&type=NOPE", appCodeHeader: nil).status == 400)
    }
}

@Suite struct ConcurrencyTests {
    /// Many tasks personalize, depersonalize and set primaries at once; the invariants hold afterwards.
    @Test func invariantsHoldUnderConcurrency() async {
        let h = Harness()
        let users = (0..<5).map { "conc-\($0)" }
        let devices = (0..<24).map { _ in h.register() }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var rng = SystemRandomNumberGenerator()
                    for step in 0..<150 {
                        let device = devices[Int.random(in: 0..<devices.count, using: &rng)]
                        let user = users[(worker + step) % users.count]
                        switch Int.random(in: 0..<6, using: &rng) {
                        case 0:
                            h.personalize(
                                device, user, force: Bool.random(), primary: Bool.random(),
                                dialect: Bool.random() ? .ios : .android)
                        case 1: h.depersonalize(device)
                        case 2: h.setPrimary(device, Bool.random())
                        case 3:
                            let other = devices[Int.random(in: 0..<devices.count, using: &rng)]
                            h.setPrimary(other, true, caller: device)
                        case 4: _ = h.push(to: ["externalUserId": .string(user)], onlyPrimary: Bool.random())
                        default:
                            _ = h.backend(
                                .patch, "/people/2/contactInformation/push/\(device)", body: ["isPrimary": true])
                        }
                    }
                }
            }
        }
        #expect(h.reference.checkInvariants() == [])
        let snapshot = h.reference.snapshot()
        #expect(snapshot.persons.flatMap(\.installations).count == devices.count)
        for person in snapshot.persons {
            #expect(person.installations.filter(\.isPrimary).count <= 1)
        }
    }
}
