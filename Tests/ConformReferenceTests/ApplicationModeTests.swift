import ConformCore
import ConformReference
import Foundation
import Testing

/// D9: the JWT profile.
@Suite struct JWTModeTests {
    let h = Harness()
    let jwtApp = ReferenceConfiguration.default.application(id: "jwt")!

    func bearer(_ token: String) -> String { "Bearer \(token)" }

    @Test func personalizeWithValidToken() {
        let id = h.register(code: jwtAppCode)
        let user = freshUser()
        let r = h.personalize(id, user, code: jwtAppCode, auth: bearer(h.token(user)))
        #expect(r.status == 200)
        #expect(h.user(id, code: jwtAppCode, auth: bearer(h.token(user))).json["externalUserId"]?.stringValue == user)
        let patch = h.mobile(
            .patch, "/mobile/1/appinstance/\(id)/user", code: jwtAppCode, auth: bearer(h.token(user)), caller: id,
            body: ["firstName": "Ana"])
        #expect(patch.status == 200)
    }

    @Test func refusals() {
        let id = h.register(code: jwtAppCode)
        let user = freshUser()
        let other = jwtApp.userDataToken(externalUserId: user, keyID: "conform-kid")!
        let wrongSecret = ReferenceConfiguration.Application(
            id: "x", applicationCode: jwtAppCode, apiKey: "k", userDataMode: .jwt, jwtKeys: ["conform-kid": "00112233"]
        )
        .userDataToken(externalUserId: user)!
        let unknownKid = ReferenceConfiguration.Application(
            id: "x", applicationCode: jwtAppCode, apiKey: "k", userDataMode: .jwt, jwtKeys: ["other-kid": "00112233"]
        )
        .userDataToken(externalUserId: user)!
        let wrongCode = ReferenceConfiguration.Application(
            id: "x", applicationCode: appCode, apiKey: "k", userDataMode: .jwt, jwtKeys: jwtApp.jwtKeys
        )
        .userDataToken(externalUserId: user)!
        let cases: [(String, String?)] = [
            ("App \(jwtAppCode)", user),  // no JWT in JWT mode
            (bearer(h.token(user, expiresAt: Date().addingTimeInterval(-5))), user),  // expired
            (bearer(h.token("someone-else")), user),  // sub mismatch
            (bearer(wrongSecret), user),
            (bearer(unknownKid), user),
            (bearer(wrongCode), user),  // names another application
            (bearer("not.a.jwt"), user),
            (bearer(other), nil),  // personalize without externalUserId
        ]
        for (auth, ext) in cases {
            let body: JSONValue =
                ext.map { ["userIdentity": ["externalUserId": .string($0)]] } ?? [
                    "userIdentity": ["emails": [["address": "a@example.com"]]]
                ]
            let r = h.personalize(id, code: jwtAppCode, auth: auth, body: body)
            #expect(r.status == 401, "\(auth)")
            #expect(r.messageId == "UNAUTHORIZED")
        }
        // Read with the JWT application's code and the user's own token: the default application's code (what
        // `externalUserId(of:)` sends) is refused, and a refused read has no externalUserId either.
        let read = h.user(id, code: jwtAppCode, auth: bearer(h.token(user)))
        #expect(read.status == 200)
        #expect(read.json["type"]?.stringValue == "LEAD", "no refused personalize made the installation a person's")
        #expect(read.json["externalUserId"] == nil)
        #expect(h.reference.snapshot().person(holding: id)?.externalUserId == nil)
    }

    @Test func getAndPatchUserNeedTheUsersToken() {
        let id = h.register(code: jwtAppCode)
        let user = freshUser()
        h.personalize(id, user, code: jwtAppCode, auth: bearer(h.token(user)))
        #expect(h.user(id, code: jwtAppCode).status == 401)
        #expect(h.user(id, code: jwtAppCode, auth: bearer(h.token("intruder"))).status == 401)
        let patch = h.mobile(
            .patch, "/mobile/1/appinstance/\(id)/user", code: jwtAppCode, caller: id, body: ["firstName": "X"])
        #expect(patch.status == 401)
        let rename = h.mobile(
            .patch, "/mobile/1/appinstance/\(id)/user", code: jwtAppCode, auth: bearer(h.token(user)), caller: id,
            body: ["externalUserId": "renamed"])
        #expect(rename.status == 401)
    }

    /// Installation calls, depersonalize, sessions, events and message sync keep `App` auth in JWT mode.
    @Test func otherCallsUseApplicationCode() {
        let id = h.register(code: jwtAppCode)
        #expect(!id.isEmpty)
        #expect(h.mobile(.get, "/mobile/1/appinstance/\(id)", code: jwtAppCode, caller: id).status == 200)
        #expect(h.depersonalize(id, code: jwtAppCode).status == 200)
        #expect(
            h.mobile(
                .post, "/mobile/1/appinstance/\(id)/user/events/custom", code: jwtAppCode, caller: id,
                body: ["events": []]
            ).status == 200)
        #expect(h.sync(id, code: jwtAppCode).isEmpty)
    }

    /// The backend personalizes a JWT-profile device with its API key, no token needed.
    @Test func backendNeedsNoToken() {
        let id = h.register(code: jwtAppCode)
        let r = h.backend(
            .post, "/people/2/contactInformation/push/\(id)/personalize", key: jwtAPIKey, appCodeHeader: jwtAppCode,
            body: ["identity": ["externalId": "backend-user"]])
        #expect(r.status == 200)
    }
}

/// D8: the restricted profile.
@Suite struct RestrictedModeTests {
    let h = Harness()

    @Test(arguments: Dialect.allCases) func userDataCallsAreRefused(dialect: Dialect) {
        let id = h.register(code: restrictedAppCode, dialect: dialect)
        let p = h.personalize(id, freshUser(), dialect: dialect, code: restrictedAppCode)
        #expect(p.status == 403 && p.messageId == "USER_DATA_RESTRICTED")
        let re = h.mobile(
            .post, "/mobile/1/appinstance/\(id)/repersonalize", code: restrictedAppCode, caller: id,
            body: ["userIdentity": ["externalUserId": "x"]])
        #expect(re.status == 403 && re.messageId == "USER_DATA_RESTRICTED")
        let patch = h.mobile(
            .patch, "/mobile/1/appinstance/\(id)/user", code: restrictedAppCode, caller: id, body: ["firstName": "X"],
            dialect: dialect)
        #expect(patch.status == 403 && patch.messageId == "USER_DATA_RESTRICTED")
        #expect(patch.headerFields["Content-Length"] != nil)
    }

    @Test func otherCallsAndBackendWork() {
        let id = h.register(code: restrictedAppCode)
        #expect(!id.isEmpty)
        #expect(
            h.mobile(
                .patch, "/mobile/1/appinstance/\(id)", code: restrictedAppCode, caller: id, body: ["isPrimary": true]
            ).status == 200)
        #expect(h.mobile(.get, "/mobile/1/appinstance/\(id)", code: restrictedAppCode, caller: id).status == 200)
        #expect(h.user(id, code: restrictedAppCode).status == 200)
        #expect(
            h.mobile(
                .post, "/mobile/1/appinstance/\(id)/user/events/session", code: restrictedAppCode, caller: id, body: [:]
            ).status == 200)
        #expect(
            h.mobile(
                .post, "/mobile/1/appinstance/\(id)/user/events/custom", code: restrictedAppCode, caller: id,
                body: ["events": [["definitionId": "x"]]]
            ).status == 200)
        let user = freshUser()
        let b3 = h.backend(
            .post, "/people/2/contactInformation/push/\(id)/personalize", key: restrictedAPIKey,
            appCodeHeader: restrictedAppCode, body: ["identity": ["externalId": .string(user)]])
        #expect(b3.status == 200)
        #expect(h.user(id, code: restrictedAppCode).json["externalUserId"]?.stringValue == user)
        #expect(h.depersonalize(id, code: restrictedAppCode).status == 200)
        #expect(h.user(id, code: restrictedAppCode).json["externalUserId"] == nil)
    }
}

/// D8: the access-restricted profile refuses what the restricted one does, and reading the user too.
@Suite struct RestrictedAccessModeTests {
    let h = Harness()
    let code = "conform-restricted-access-app-code"
    let key = "conform-restricted-access-api-key"

    @Test func personalDataCallsAreRefusedAndTheRestWorks() {
        let id = h.register(code: code)
        #expect(!id.isEmpty)
        let p = h.personalize(id, freshUser(), code: code)
        #expect(p.status == 403 && p.messageId == "USER_DATA_RESTRICTED")
        let patch = h.mobile(
            .patch, "/mobile/1/appinstance/\(id)/user", code: code, caller: id, body: ["firstName": "X"])
        #expect(patch.status == 403 && patch.messageId == "USER_DATA_RESTRICTED")
        let user = freshUser()
        let b3 = h.backend(
            .post, "/people/2/contactInformation/push/\(id)/personalize", key: key, appCodeHeader: code,
            body: ["identity": ["externalId": .string(user)]])
        #expect(b3.status == 200)
        let read = h.user(id, code: code)
        #expect(read.status == 403 && read.messageId == "USER_DATA_RESTRICTED")
        #expect(h.backend(.get, "/people/2/persons?identifier=\(user)", key: key).status == 200)
        #expect(h.mobile(.get, "/mobile/1/appinstance/\(id)", code: code, caller: id).status == 200)
        #expect(h.depersonalize(id, code: code).status == 200)
    }
}
