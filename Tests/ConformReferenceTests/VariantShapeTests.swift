import ConformCore
import ConformReference
import Foundation
import Testing

/// Every object in `value` outside user-data maps, with the path it was found at.
private func protocolObjects(_ value: JSONValue, path: String = "$") -> [(String, JSONObject)] {
    switch value {
    case .object(let object):
        var found = [(path, object)]
        for (key, member) in object
        where !["customAttributes", "customPayload", "additionalData", "to", "vendorExtensions"].contains(key) {
            found += protocolObjects(member, path: "\(path).\(key)")
        }
        return found
    case .array(let items):
        return items.enumerated().flatMap { protocolObjects($0.element, path: "\(path)[\($0.offset)]") }
    default:
        return []
    }
}

@Suite("Variants: shape and wire")
struct VariantShapeTests {
    /// explicitNulls: the optional members the reference leaves out are null or [] (D19).
    @Test func explicitNullsRendersEveryOptionalMember() {
        let h = variantHarness([.explicitNulls])
        let id = h.register(body: ["pushServiceType": "Firebase", "os": "Android"])
        let installation = h.mobile(.get, "/mobile/1/appinstance/\(id)", caller: id).json
        for key in ["pushServiceToken", "sdkVersion", "appVersion", "osVersion", "deviceModel", "language"] {
            #expect(installation[key] == .null, "M3 \(key)")
        }
        #expect(installation["os"] == "Android")
        let user = h.user(id).json
        for key in ["externalUserId", "firstName", "lastName", "middleName", "gender", "birthday", "customAttributes"] {
            #expect(user[key] == .null, "M7 \(key)")
        }
        for key in ["phones", "emails", "tags"] { #expect(user[key] == [], "M7 \(key)") }
        #expect(user["instances"]?[0]?["deviceName"] == .null)
        let ext = freshUser()
        let personalized = h.personalize(id, ext).json
        #expect(personalized["externalUserId"]?.stringValue == ext)
        #expect(personalized["instances"] == .null, "M4 does not list devices; null, not an empty list")
        let person = h.backend(.get, "/people/2/persons?identifier=\(ext)&type=EXTERNAL_ID").json
        #expect(person["firstName"] == .null)
        #expect(person["contactInformation"]?["push"]?[0]?["systemData"]?["osVersion"] == .null)
        let b3 = h.backend(
            .post, "/people/2/contactInformation/push/\(id)/personalize",
            body: ["identity": ["externalId": .string(ext)]]
        ).json
        #expect(b3["contactInformation"]?["push"] == .null)
        #expect(h.backend(.get, "/people/2/contactInformation/push/\(id)").json["systemData"]?["deviceModel"] == .null)
        let apnsDevice = h.register(dialect: .ios)
        h.personalize(apnsDevice, ext, dialect: .ios)
        _ = h.push(to: ["pushRegistrationId": .string(apnsDevice)])
        let apns = h.sync(apnsDevice, platform: "APNS")
        #expect(apns.first?["aps"]?["alert"]?["title"] == .null)
        #expect(apns.first?["customPayload"] == .null)
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
        #expect(v3.json["messages"]?[0]?["status"]?["action"] == .null)
        // The plain reference leaves them all out.
        let plain = Harness()
        let other = plain.register(body: ["os": "Android"])
        #expect(plain.user(other).json["externalUserId"] == nil)
        #expect(plain.mobile(.get, "/mobile/1/appinstance/\(other)", caller: other).json["sdkVersion"] == nil)
    }

    /// extraMembers: every protocol object carries unknown members; user data is untouched.
    @Test func extraMembersAppearEverywhereButInUserData() throws {
        let h = variantHarness([.extraMembers])
        let ext = freshUser()
        let id = h.register()
        h.mobile(
            .patch, "/mobile/1/appinstance/\(id)", caller: id, body: ["customAttributes": ["tier": "gold", "n": 1]])
        h.personalize(id, ext)
        let user = h.user(id)
        #expect(user.headerFields["Content-Length"] == String(user.body.count))
        for (path, object) in protocolObjects(user.json) {
            #expect(object["vendorTrace"] != nil, "no extra member at \(path)")
        }
        #expect(user.json["instances"]?[0]?["customAttributes"] == ["tier": "gold", "n": 1])
        #expect(user.json["vendorExtensions"]?.objectValue != nil, "an object-valued extra member too")
        let push = h.push(to: ["externalUserId": .string(ext)])
        #expect(push.json["bulks"]?[0]?["to"] == ["externalUserId": .string(ext)], "the echoed filter is unchanged")
        #expect(push.json["bulks"]?[0]?["status"]?["vendorTrace"] != nil)
        let gcm = try #require(h.sync(id).first?.objectValue)
        #expect(gcm.allSatisfy { $0.value.stringValue != nil }, "a GCM payload keeps string values only")
        #expect(gcm["vendorTrace"] != nil)
        let error = h.mobile(.get, "/mobile/1/appinstance/unknown-id")
        #expect(error.messageId == "NO_REGISTRATION")
        #expect(error.json["requestError"]?["serviceException"]?["vendorTrace"] != nil)
        #expect(error.headerFields["Content-Length"] == String(error.body.count), "D15 holds")
    }

    /// opaqueIds: pushRegIds are mixed-case tokens, message and bulk ids 40 hex digits, all unique.
    @Test func opaqueIdsAreNotUUIDsAndStayUnique() throws {
        let h = variantHarness([.opaqueIds])
        let uuid = try Regex("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-")
        var ids: Set<String> = []
        for _ in 0..<300 {
            let id = h.register()
            #expect(id.count == 32)
            #expect(id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
            #expect(id.contains { $0.isUppercase } && id.contains { $0.isLowercase })
            #expect(id.firstMatch(of: uuid) == nil)
            ids.insert(id)
        }
        #expect(ids.count == 300)
        let ext = freshUser()
        let device = try #require(ids.first)
        #expect(h.personalize(device, ext).status == 200)
        let push = h.push(to: ["pushRegistrationId": .string(device)])
        let bulkId = try #require(push.bulk?["bulkId"]?.stringValue)
        #expect(bulkId.count == 40 && bulkId.allSatisfy(\.isHexDigit) && bulkId == bulkId.lowercased())
        let messageId = try #require(h.syncedIds(device).first)
        #expect(messageId.count == 40 && messageId.allSatisfy(\.isHexDigit))
        #expect(h.backend(.get, "/people/2/contactInformation/push/\(device)").status == 200)
    }

    /// chunked, headerCase and connectionClose in process: the response says so in its headers.
    @Test func wireVariantsShowInTheResponseHeaders() {
        let chunked = variantHarness([.chunked])
        let id = chunked.register()
        let ok = chunked.mobile(.get, "/mobile/1/appinstance/\(id)", caller: id)
        #expect(ok.status == 200)
        #expect(ok.headerFields["Content-Length"] == nil)
        #expect(ok.headerFields["Transfer-Encoding"] == "chunked")
        let error = chunked.mobile(.get, "/mobile/1/appinstance/nobody")
        #expect(error.headerFields["Content-Length"] == String(error.body.count), "errors keep Content-Length (D15)")
        #expect(error.headerFields["Transfer-Encoding"] == nil)

        let plain = Harness()
        let plainNames = plain.mobile(.get, "/mobile/1/appinstance/\(plain.register())").headerFields.map(\.name)
        let cased = variantHarness([.headerCase])
        let casedId = cased.register()
        let names = cased.mobile(.get, "/mobile/1/appinstance/\(casedId)", caller: casedId).headerFields.map(\.name)
        #expect(names.allSatisfy { $0 == $0.lowercased() })
        #expect(names.contains("date"))
        #expect(names.filter { $0 != "date" } != plainNames.map { $0.lowercased() }, "another order")
        #expect(Set(names.filter { $0 != "date" }) == Set(plainNames.map { $0.lowercased() }))

        let closing = variantHarness([.connectionClose])
        #expect(closing.mobile(.get, "/mobile/1/baseurl").headerFields["Connection"] == "close")
        #expect(closing.mobile(.get, "/mobile/1/appinstance/nobody").headerFields["Connection"] == "close")
    }

    /// newBaseURL: every mobile response names the base URL it came to, the one M12 answers; the backend never does.
    @Test func newBaseURLIsAnnouncedOnMobileResponsesOnly() {
        let h = variantHarness([.newBaseURL])
        let id = h.register()
        let base = h.mobile(.get, "/mobile/1/baseurl")
        #expect(base.headerFields["New-Base-URL"] == "http://mobile.conform.invalid")
        #expect(base.json["baseUrl"]?.stringValue == base.headerFields["New-Base-URL"])
        #expect(h.mobile(.get, "/mobile/1/appinstance/nobody").headerFields["New-Base-URL"] != nil)
        #expect(h.backend(.get, "/people/2/contactInformation/push/\(id)").headerFields["New-Base-URL"] == nil)
        #expect(Harness().mobile(.get, "/mobile/1/baseurl").headerFields["New-Base-URL"] == nil)
    }

    /// Every variant at once still runs the flow: register, personalize, push, sync, backend read.
    @Test func allVariantsTogetherStillRunTheFlow() {
        let clock = ManualClock()
        let h = Harness(
            ReferenceImplementation(
                configuration: .default, faults: [],
                variants: Set(ReferenceVariant.allCases).subtracting([.latency]), clock: clock.function))
        let ext = freshUser()
        let id = h.register()
        #expect(!id.isEmpty)
        #expect(h.personalize(id, ext).status == 200)
        #expect(h.externalUserId(of: id) == ext)
        #expect(h.push(to: ["externalUserId": .string(ext)]).bulk?["messageCount"] == 1)
        clock.advance(milliseconds: 800)
        #expect(h.syncedIds(id).count == 1)
        #expect(h.backend(.get, "/people/2/persons?identifier=\(ext)&type=EXTERNAL_ID").status == 200)
        #expect(h.reference.checkInvariants().isEmpty)
    }

    /// Every variant is listed, named in camelCase, summarized, and round-trips through Codable.
    @Test func variantsAreAnOpenSetLikeFaults() throws {
        #expect(ReferenceVariant.allCases.count == 16)
        #expect(Set(ReferenceVariant.allCases).count == ReferenceVariant.allCases.count)
        for variant in ReferenceVariant.allCases {
            #expect(variant.summary?.isEmpty == false, "\(variant) has no summary")
            #expect(variant.rawValue.first?.isLowercase == true && !variant.rawValue.contains("-"))
        }
        #expect(ReferenceVariant(rawValue: "madeUp").summary == nil)
        let data = try JSONEncoder().encode([ReferenceVariant.chunked])
        #expect(String(decoding: data, as: UTF8.self) == #"["chunked"]"#)
        #expect(try JSONDecoder().decode([ReferenceVariant].self, from: data) == [.chunked])
        #expect(ReferenceImplementation().variants.isEmpty)
    }
}
