import ConformCore
import Foundation
import Testing

@testable import ConformReference

/// An installation's answer is written straight into bytes; it must be the tree's answer, byte for byte.
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
}
