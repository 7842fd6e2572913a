import ConformCore
import Foundation
import Testing

@testable import ConformReference

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

    /// A full store refuses writes without walking its whole state for each: it measures again only once enough
    /// has been accepted, or once something that can free space has run. (Measuring on every refused write made a
    /// store filled to its limit by a million registrations take seconds a request.)
    @Test func aFullStoreRefusesWritesWithoutMeasuringForEach() {
        let reference = ReferenceImplementation(storageLimit: StorageLimit(bytes: 1 << 20))
        let h = Harness(reference)
        var kept: [String] = []
        for _ in 0..<3 { kept.append(h.register(body: Self.bigRegistration(300_000))) }
        #expect(reference.storageMeasures == 0, "writes within the optimistic bound need no measure")
        for _ in 0..<50 {
            let refused = h.mobile(.post, "/mobile/1/appinstance?ri=true", body: Self.bigRegistration(300_000))
            #expect(refused.status == 507)
        }
        #expect(reference.storageMeasures == 1, "one measure found the store full; the other refusals needed none")
        // Small writes that fit the bound still go through, and a delete lets the next write measure again.
        #expect(!h.register().isEmpty)
        #expect(reference.storageMeasures == 1)
        #expect(h.mobile(.delete, "/mobile/1/appinstance/\(kept[0])", caller: kept[0]).status == 200)
        #expect(!h.register(body: Self.bigRegistration(300_000)).isEmpty)
        #expect(reference.storageMeasures == 2)
    }

    /// The default is generous: the bundled flows store far less than 64 MiB.
    @Test func theDefaultLimitIs64MiB() {
        #expect(ReferenceImplementation().storageLimit.bytes == 64 << 20)
    }
}
