import ConformCore
import Foundation
import Testing

@testable import ConformReference

/// An installation's and a user's answer are written straight into bytes; each must be the tree's answer, byte for byte.
@Suite struct RenderingBytesTests {
    @Test func anInstallationsBytesAreItsTreeSerialized() throws {
        var plain = Installation(pushRegId: "id-1", applicationId: "app", personId: "p")
        var full = plain
        full.isPrimary = true
        full.regEnabled = false
        let fields = #"{"os":"Android","sdkVersion":"1\"2\n","deviceSecure":true,"n":1.5,"list":[1,{"a":null}]}"#
        full.fields = try #require(JSONValue.parse(fields).objectValue)
        full.customAttributes = try #require(JSONValue.parse(#"{"z":"é","a":{"b":[]}}"#).objectValue)
        plain.customAttributes = JSONObject()
        for installation in [plain, full] {
            for includePushRegId in [true, false] {
                for explicitNulls in [true, false] {
                    let bytes = ReferenceRendering.installationResponse(
                        installation, includePushRegId: includePushRegId, explicitNulls: explicitNulls)
                    let tree = HTTPResponse.json(
                        200,
                        ReferenceRendering.installation(
                            installation, includePushRegId: includePushRegId, explicitNulls: explicitNulls))
                    #expect(
                        bytes == tree,
                        "\(includePushRegId) \(explicitNulls): \(String(decoding: bytes.body, as: UTF8.self))")
                    #expect(Array(bytes.headerFields.fields) == Array(tree.headerFields.fields))
                }
            }
        }
    }

    /// A user's answer without `instances` (personalize) is written straight into bytes: the tree's, byte for byte.
    @Test func aUsersBytesAreItsTreeSerialized() throws {
        let bare = Person(id: "p-1", applicationId: "app")
        var full = Person(id: "p-2", applicationId: "app", externalUserId: "ext \"1\"")
        full.phones = ["38591", "38592"]
        full.emails = ["a@b.c"]
        full.tags = ["t1", "é"]
        full.attributes = try #require(
            JSONValue.parse(#"{"gender":"fEMALE","firstName":"Ana\n","birthday":"1990-01-01"}"#).objectValue)
        full.customAttributes = try #require(JSONValue.parse(#"{"z":1.5,"a":{"b":[null,true]}}"#).objectValue)
        full.type = "CUSTOMER"
        var stale = bare
        stale.staleExternalUserId = "old"
        for person in [bare, full, stale] {
            for showStale in [true, false] {
                for explicitNulls in [true, false] {
                    let bytes = ReferenceRendering.userResponse(
                        person, showStale: showStale, explicitNulls: explicitNulls)
                    let tree = HTTPResponse.json(
                        200,
                        ReferenceRendering.user(
                            person, instances: nil, showStale: showStale, explicitNulls: explicitNulls))
                    #expect(
                        bytes == tree,
                        "\(person.id) \(showStale) \(explicitNulls): \(String(decoding: bytes.body, as: UTF8.self))")
                    #expect(Array(bytes.headerFields.fields) == Array(tree.headerFields.fields))
                }
            }
        }
    }
}
