import ConformCore
import ConformReference
import Foundation
import Testing

/// A check of correct behaviour that one fault breaks: true on a healthy reference, false with the fault on.
typealias FaultProbe = @Sendable (Harness) -> Bool

/// Two devices of one fresh user; returns (user, a, b).
private func twoDevices(_ h: Harness, primary: Bool = false) -> (String, String, String) {
    let user = freshUser()
    let a = h.register()
    let b = h.register()
    h.personalize(a, user, primary: primary)
    h.personalize(b, user)
    return (user, a, b)
}

/// Every fault's probe: the ones below, those of the endpoints added for coverage and those of sequences.
let faultProbes = coreFaultProbes.merging(coverageFaultProbes) { first, _ in first }.merging(sequenceFaultProbes) {
    first, _ in first
}

private let coreFaultProbes: [ReferenceFault: FaultProbe] = [
    .registrationWithoutPushRegId: { h in !h.register().isEmpty },
    .unknownRegistrationAccepted: { h in
        h.mobile(.get, "/mobile/1/appinstance/made-up").messageId == "NO_REGISTRATION"
            && h.backend(.get, "/people/2/contactInformation/push/made-up").json["errorCode"] == 48013
    },
    .methodOverrideIgnored: { h in
        let id = h.register()
        return h.setPrimary(id, true, dialect: .android).status == 200
    },
    .otherInstallationUnchecked: { h in
        let a = h.register()
        let b = h.register()
        h.personalize(a, freshUser())
        return h.depersonalize(b, caller: a).status == 403
    },
    .ignoreForceDepersonalize: { h in
        let id = h.register()
        h.personalize(id, freshUser())
        let other = freshUser()
        return h.personalize(id, other, force: true).status == 200 && h.externalUserId(of: id) == other
    },
    .mergeOnDifferentUser: { h in
        let id = h.register()
        let first = freshUser()
        h.personalize(id, first)
        return h.personalize(id, freshUser()).messageId == "USER_MERGE_INTERRUPTED" && h.externalUserId(of: id) == first
    },
    .forceOnAnonymousRefused: { h in
        let id = h.register()
        let user = freshUser()
        return h.personalize(id, user, force: true).status == 200 && h.externalUserId(of: id) == user
    },
    .personalizeNotIdempotent: { h in
        let id = h.register()
        let user = freshUser()
        return h.personalize(id, user).status == 200 && h.personalize(id, user).status == 200
    },
    .forceDepersonalizeDropsOtherDevices: { h in
        let (user, a, b) = twoDevices(h)
        h.personalize(a, freshUser(), force: true)
        return h.externalUserId(of: b) == user
    },
    .numericBooleansIgnored: { h in
        let id = h.register()
        h.personalize(id, freshUser(), primary: true, dialect: .ios)
        return h.reference.snapshot().installation(id)?.isPrimary == true
    },
    .emptyIdentityAccepted: { h in
        h.personalize(h.register(), body: ["userIdentity": [:]]).messageId == "USER_IDENTITY_INVALID"
    },
    .depersonalizeNoop: { h in
        let (_, a, _) = twoDevices(h)
        h.depersonalize(a)
        return h.reference.snapshot().person(holding: a)?.externalUserId == nil
    },
    .depersonalizeKeepsIdentity: { h in
        let (_, a, _) = twoDevices(h)
        h.depersonalize(a)
        return h.user(a).json["externalUserId"] == nil
    },
    .primaryNotExclusive: { h in
        let (_, a, b) = twoDevices(h, primary: true)
        h.setPrimary(b, true)
        return h.reference.checkInvariants().isEmpty && h.reference.snapshot().installation(a)?.isPrimary == false
    },
    .setDeviceAsPrimaryIgnored: { h in
        let id = h.register()
        h.personalize(id, freshUser(), primary: true)
        return h.reference.snapshot().installation(id)?.isPrimary == true
    },
    .targetOnlyPrimaryIgnored: { h in
        let (user, _, _) = twoDevices(h, primary: true)
        return h.push(to: ["externalUserId": .string(user)], onlyPrimary: true).bulk?["messageCount"] == 1
    },
    .pushReachesOnlyFirstDevice: { h in
        let (user, _, b) = twoDevices(h)
        _ = h.push(to: ["externalUserId": .string(user)])
        return h.syncedIds(b).count == 1
    },
    .syncResendsKnownMessages: { h in
        let (user, a, _) = twoDevices(h)
        _ = h.push(to: ["externalUserId": .string(user)])
        let ids = h.syncedIds(a)
        return ids.count == 1 && h.syncedIds(a, drIDs: ids).isEmpty && h.syncedIds(a).isEmpty
    },
    .noDestinationReportedAccepted: { h in
        h.push(to: ["externalUserId": "nobody-at-all"]).bulk?["status"]?["id"] == 66
    },
    .restrictedNotEnforced: { h in
        let id = h.register(code: restrictedAppCode)
        return h.personalize(id, freshUser(), code: restrictedAppCode).messageId == "USER_DATA_RESTRICTED"
    },
    .jwtNotVerified: { h in
        let id = h.register(code: jwtAppCode)
        let user = freshUser()
        let forged = JSONValue(dictionaryLiteral: ("sub", .string(user)), ("infobip-api-key", .string(jwtAppCode)))
        let token = "eyJhbGciOiJIUzI1NiJ9.\(base64URL(forged.serialized())).AAAA"
        return h.personalize(id, user, code: jwtAppCode, auth: "Bearer \(token)").status == 401
    },
    .jwtSubjectNotChecked: { h in
        let id = h.register(code: jwtAppCode)
        return h.personalize(id, freshUser(), code: jwtAppCode, auth: "Bearer \(h.token("someone-else"))").status == 401
    },
    .jwtModeAcceptsAppCode: { h in
        let id = h.register(code: jwtAppCode)
        return h.personalize(id, freshUser(), code: jwtAppCode).status == 401
    },
    .appCodeOpensBackend: { h in
        h.backend(.get, "/people/2/contactInformation/push/\(h.register())", key: appCode).status == 401
    },
    .appCodeHeaderNotRequired: { h in
        h.backend(.get, "/people/2/contactInformation/push/\(h.register())", appCodeHeader: nil).json["errorCode"]
            == 48001
    },
    .errorWithoutContentLength: { h in h.mobile(.get, "/nowhere").headerFields["Content-Length"] != nil },
    .errorAsPlainText: { h in h.mobile(.get, "/nowhere").headerFields["Content-Type"] == "application/json" },
]

private func base64URL(_ text: String) -> String {
    Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
        of: "/", with: "_"
    )
    .replacingOccurrences(of: "=", with: "")
}

@Suite struct FaultTests {
    @Test func catalogue() {
        #expect(ReferenceFault.allCases.count >= 16)
        #expect(Set(ReferenceFault.allCases).count == ReferenceFault.allCases.count)
        for fault in ReferenceFault.allCases {
            #expect(fault.summary?.isEmpty == false, "\(fault) has no summary")
        }
        #expect(ReferenceFault(rawValue: "notAFault").summary == nil)
        #expect(Set(faultProbes.keys) == Set(ReferenceFault.allCases), "every fault needs a probe")
    }

    /// Each fault flips exactly the behaviour its probe checks.
    @Test(arguments: ReferenceFault.allCases) func faultFlipsItsBehaviour(fault: ReferenceFault) throws {
        let probe = try #require(faultProbes[fault])
        #expect(probe(Harness()), "healthy reference fails the probe for \(fault)")
        #expect(!probe(Harness(faults: [fault])), "\(fault) does not change the behaviour")
    }

    /// Faults stay off by default.
    @Test func defaultsAreHealthy() {
        #expect(ReferenceImplementation().faults.isEmpty)
    }
}
