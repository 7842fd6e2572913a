import ConformCore
import ConformReference
import Foundation
import Testing

/// The `otherAssumedAnswers` variant: other answers wherever decisions.md marks one as assumed, MUSTs kept.
@Suite("Variants: other assumed answers")
struct VariantAssumedAnswerTests {
    let h = variantHarness([.otherAssumedAnswers])

    /// Every error keeps the D15 MUSTs: JSON, Content-Length, a 4xx, the standard envelope with a messageId.
    private func expectEnvelope(
        _ r: HTTPResponse, _ status: Int, _ messageId: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(r.status.code == status, sourceLocation: sourceLocation)
        #expect(r.messageId == messageId, sourceLocation: sourceLocation)
        #expect(r.headerFields["Content-Type"] == "application/json", sourceLocation: sourceLocation)
        #expect(r.headerFields["Content-Length"] == String(r.body.count), sourceLocation: sourceLocation)
    }

    /// D11: 401 and the envelope stay; the mobile messageId is the iOS fixture's "1", the backend's text changes.
    @Test func credentialsRefusalsUseTheFixturesMessageId() {
        let r = h.mobile(.post, "/mobile/1/appinstance", code: "wrong-code", body: [:])
        expectEnvelope(r, 401, "1")
        #expect(r.json["requestError"]?["serviceException"]?["text"] == "Invalid Application Id")
        expectEnvelope(h.mobile(.get, "/mobile/1/baseurl", code: apiKey), 401, "1")
        let backend = h.backend(.get, "/people/2/persons?identifier=x", key: appCode)
        expectEnvelope(backend, 401, "UNAUTHORIZED")
        #expect(backend.json["requestError"]?["serviceException"]?["text"] == "Invalid login details")
    }

    /// D10: the mobile answer changes to 404 "7"; the backend's 400 48013 is MUST and stays.
    @Test func unknownRegistrationIs404OnMobileAnd48013OnBackend() {
        expectEnvelope(h.mobile(.get, "/mobile/1/appinstance/made-up"), 404, "7")
        expectEnvelope(h.syncResponse("made-up"), 404, "7")
        let backend = h.backend(.get, "/people/2/contactInformation/push/made-up")
        #expect(backend.status == 400)
        #expect(backend.json["errorCode"] == 48013)
        #expect(h.backend(.get, "/people/2/contactInformation/push/x", appCodeHeader: nil).json["errorCode"] == 48001)
    }

    /// D1 and D2: business refusals keep their messageId with 409; validation errors with 422.
    @Test func businessErrorsKeepTheirMessageIdWithOtherStatuses() {
        let id = h.register()
        let first = freshUser()
        h.personalize(id, first)
        expectEnvelope(h.personalize(id, freshUser()), 409, "USER_MERGE_INTERRUPTED")
        #expect(h.externalUserId(of: id) == first, "D2: the device stays")
        expectEnvelope(
            h.personalize(id, body: ["userIdentity": ["emails": [["address": "not-an-address"]]]]), 422,
            "EMAIL_INVALID")
        expectEnvelope(h.personalize(id, body: ["userIdentity": [:]]), 422, "USER_IDENTITY_INVALID")
        expectEnvelope(h.mobile(.post, "/mobile/1/appinstance", rawBody: "{nope"), 422, "REQUEST_FORMAT_INVALID")
        // Backend refusals are not D1: unchanged.
        let b3 = h.backend(.post, "/people/2/contactInformation/push/\(id)/personalize", body: ["identity": [:]])
        #expect(b3.status == 400)
    }

    /// D8 and D9: the profiles refuse the same calls, with other codes.
    @Test func profileRefusalsUseOtherCodes() {
        let restricted = h.register(code: restrictedAppCode)
        let r = h.personalize(restricted, freshUser(), code: restrictedAppCode)
        expectEnvelope(r, 401, "UNAUTHORIZED")
        #expect(h.user(restricted, code: restrictedAppCode).status == 200, "reading still works")
        let jwtDevice = h.register(code: jwtAppCode)
        expectEnvelope(h.personalize(jwtDevice, freshUser(), code: jwtAppCode), 403, "FORBIDDEN")
        let ext = freshUser()
        #expect(h.personalize(jwtDevice, ext, code: jwtAppCode, auth: "Bearer \(h.token(ext))").status == 200)
        expectEnvelope(h.user(jwtDevice, code: jwtAppCode, auth: "Bearer \(h.token(freshUser()))"), 403, "FORBIDDEN")
    }

    /// D16: a device of another person gets 404 instead of 403, and the installation is unchanged.
    @Test func strangerDeviceIsToldTheInstallationDoesNotExist() {
        let a = h.register()
        let b = h.register()
        let ext = freshUser()
        h.personalize(a, ext)
        expectEnvelope(h.depersonalize(a, caller: b), 404, "NOT_FOUND")
        #expect(h.externalUserId(of: a) == ext)
    }

    /// D5: a depersonalize with nothing left to do answers 204 with no body; the first one still 200.
    @Test func repeatedDepersonalizeIs204() {
        let id = h.register()
        h.personalize(id, freshUser())
        #expect(h.depersonalize(id).status == 200)
        let again = h.depersonalize(id)
        #expect(again.status == 204)
        #expect(again.body.isEmpty)
        #expect(again.headerFields["Content-Length"] == nil)
        #expect(h.externalUserId(of: id) == nil)
    }

    /// D7 and D17: a push reaching no device is accepted with 202, still reported undeliverable (a pending report
    /// is the `noDestinationReportedAccepted` fault's, which the variant must not share); reaching one is 200.
    @Test func pushesReachingNoDeviceAre202AndStillReportedUndeliverable() {
        let ext = freshUser()
        let id = h.register()
        h.personalize(id, ext)
        let primaryOnly = h.push(to: ["externalUserId": .string(ext)], onlyPrimary: true)
        #expect(primaryOnly.status == 202)
        #expect(primaryOnly.bulk?["messageCount"] == 0)
        #expect(primaryOnly.bulk?["status"]?["name"] == "UNDELIVERABLE_NO_DESTINATION")
        #expect(h.push(to: ["externalUserId": .string(ext)]).status == 200)
        h.depersonalize(id)
        let nobody = h.push(to: ["externalUserId": .string(ext)])
        #expect(nobody.status == 202)
        #expect(nobody.bulk?["status"]?["groupName"] == "UNDELIVERABLE")
        let v3 = h.backend(
            .post, "/push/3/messages", appCodeHeader: nil,
            body: [
                "messages": [
                    [
                        "sender": .string(appCode), "content": ["text": "Hi"],
                        "destinations": [["type": "EXTERNAL_USER_ID", "externalUserId": .string(ext)]],
                    ]
                ]
            ])
        #expect(v3.status == 202)
        #expect(v3.json["messages"]?[0]?["status"]?["name"] == "UNDELIVERABLE_NO_DESTINATION")
        // A rejected push is not a D17 case: still 200 with its REJECTED status.
        let rejected = h.push(to: ["externalUserId": .string(ext)], from: "another-app")
        #expect(rejected.status == 200)
        #expect(rejected.bulk?["status"]?["name"] == "REJECTED_NO_APPLICATION")
    }

    /// Faults still flip their behaviour under the variant.
    @Test func faultsComposeWithTheVariant() {
        let noLength = variantHarness([.otherAssumedAnswers], faults: [.errorWithoutContentLength])
        let r = noLength.mobile(.get, "/mobile/1/appinstance/made-up")
        #expect(r.status == 404)
        #expect(r.headerFields["Content-Length"] == nil)
        let accepting = variantHarness([.otherAssumedAnswers], faults: [.unknownRegistrationAccepted])
        #expect(accepting.mobile(.get, "/mobile/1/appinstance/made-up").status == 200)
        let pending = variantHarness([.otherAssumedAnswers], faults: [.noDestinationReportedAccepted])
        #expect(pending.push(to: ["externalUserId": "nobody-at-all"]).bulk?["status"]?["name"] == "PENDING_ACCEPTED")
        let merging = variantHarness([.otherAssumedAnswers], faults: [.mergeOnDifferentUser])
        let id = merging.register()
        merging.personalize(id, freshUser())
        let second = freshUser()
        #expect(merging.personalize(id, second).status == 200)
        #expect(merging.externalUserId(of: id) == second)
    }
}

extension Harness {
    /// M14 as `id`, the whole response.
    func syncResponse(_ id: String) -> HTTPResponse {
        mobile(.post, "/mobile/5/messages?platformType=GCM", caller: id)
    }
}
