import ConformCore
import ConformReference
import Foundation
import Testing

/// The reference keeps a bounded amount of data: writes past the limit get 507, and deleting frees space.
@Suite struct StorageLimitTests {
    static func bigRegistration(_ bytes: Int) -> JSONValue {
        [
            "pushServiceToken": .string("token-\(UUID().uuidString)"), "pushServiceType": "Firebase",
            "regEnabled": true, "os": "Android", "sdkVersion": "15.1.0",
            "deviceName": .string(String(repeating: "x", count: bytes)),
        ]
    }

    @Test func writesPastTheLimitAreRefusedAndDeletesFreeSpace() {
        let h = Harness(ReferenceImplementation(storageLimit: StorageLimit(bytes: 1 << 20)))
        var kept: [String] = []
        for _ in 0..<3 {
            let id = h.register(body: Self.bigRegistration(300_000))
            #expect(!id.isEmpty)
            kept.append(id)
        }
        let refused = h.mobile(.post, "/mobile/1/appinstance?ri=true", body: Self.bigRegistration(300_000))
        #expect(refused.status == 507)
        #expect(refused.json["requestError"]?["serviceException"]?["messageId"] == "STORAGE_LIMIT_REACHED")
        // Small writes and reads still go through while there is room for them.
        #expect(!h.register().isEmpty)
        #expect(h.mobile(.get, "/mobile/1/appinstance/\(kept[0])", caller: kept[0]).status == 200)
        // A deleted registration frees its share at the next measure.
        #expect(h.mobile(.delete, "/mobile/1/appinstance/\(kept[0])", caller: kept[0]).status == 200)
        #expect(!h.register(body: Self.bigRegistration(300_000)).isEmpty)
    }

    /// The default is generous: the bundled flows store far less than 64 MiB.
    @Test func theDefaultLimitIs64MiB() {
        #expect(ReferenceImplementation().storageLimit.bytes == 64 << 20)
    }
}
