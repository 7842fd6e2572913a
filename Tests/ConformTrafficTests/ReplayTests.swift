import ConformCore
import ConformMobileMessaging
import ConformTestSupport
import ConformYAML
import Foundation
import Synchronization
import Testing

@testable import ConformReplay
@testable import ConformTraffic

@Suite struct ReplayTests {
    static func recording(
        _ dir: String, handler: FakeMessagingHandler = FakeMessagingHandler(),
        redaction: RedactionPolicy = RedactionPolicy(profile: .mobileMessaging),
        appCode: String = "conform-app-code", devices: Int = 2
    ) async throws -> [RecordedExchange] {
        let writer = try RecordingWriter(directory: dir, profile: .mobileMessaging, redaction: redaction)
        try await recordFlow(into: writer, transport: InProcessTransport(handler), appCode: appCode, devices: devices)
        writer.close()
        return try readAll(dir)
    }

    @Test func replayRemapsMintedIdsAgainstAFreshTarget() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recorded = try await Self.recording(dir, devices: 6)
        #expect(recorded.count == 6 * 3 + 1)
        let replayer = Replayer(
            transport: InProcessTransport(FakeMessagingHandler()), options: ReplayOptions(profile: .mobileMessaging))
        let summary = try await replayer.replay(try Trace.open(dir))
        #expect(summary.mismatches.map(\.description) == [])
        #expect(summary.total == recorded.count)
        #expect(summary.passed == recorded.count)
        // Every device's pushRegId (and the bulkId) was mapped to a fresh live value.
        #expect(summary.identifiers.mapping.count == 6 + 1)
        for e in recorded where e.request.url.hasSuffix("/mobile/1/appinstance?ri=true") {
            let id = try JSONValue.parse(e.response.body)["pushRegId"]!.stringValue!
            #expect(summary.identifiers.mapping[id] != nil)
        }
    }

    @Test func sequentialReplayGivesTheSameResult() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recorded = try await Self.recording(dir)
        let replayer = Replayer(
            transport: InProcessTransport(FakeMessagingHandler()),
            options: ReplayOptions(profile: .mobileMessaging, concurrentFlows: false))
        let summary = try await replayer.replay(recorded)
        #expect(summary.allPassed)
    }

    @Test func mismatchesNameTheJSONPath() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await Self.recording(dir)
        var faulty = FakeMessagingHandler.Options()
        faulty.faulty = true
        let summary = try await Replayer(
            transport: InProcessTransport(FakeMessagingHandler(faulty)),
            options: ReplayOptions(profile: .mobileMessaging)
        ).replay(
            try Trace.open(dir))
        #expect(summary.mismatched == 2)
        #expect(summary.passed == summary.total - 2)
        let d = summary.mismatches.flatMap(\.differences).map(\.description)
        #expect(
            d == [#"body $.type: expected "CUSTOMER", got "LEAD""#, #"body $.type: expected "CUSTOMER", got "LEAD""#])
    }

    @Test func redactedRecordingStillReplays() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let secretCode = "live-app-code-7f3a91c2"
        var options = FakeMessagingHandler.Options()
        options.applicationCode = secretCode
        let recorded = try await Self.recording(dir, handler: FakeMessagingHandler(options), appCode: secretCode)
        let text = try String(contentsOfFile: dir + "/exchanges.jsonl", encoding: .utf8)
        for secret in [secretCode, "person0@mail.example.org", "385981234560", "APA91bXyZ0123456789abcdefghijk"] {
            #expect(!text.contains(secret))
        }
        #expect(try SecretScanner(profile: .mobileMessaging).scan(paths: [dir]) == [])
        let pseudonym = try #require(recorded[0].request.headerFields["Authorization"]).dropFirst(4)
        let replayer = Replayer(
            transport: InProcessTransport(FakeMessagingHandler(options)),
            options: ReplayOptions(profile: .mobileMessaging, substitutions: [String(pseudonym): secretCode]))
        let summary = try await replayer.replay(try Trace.open(dir))
        #expect(summary.mismatches.map(\.description) == [])
        #expect(summary.allPassed)
    }

    @Test func originsAreRewrittenPerUpstream() async throws {
        let seen = RequestLog()
        struct Spy: Transport {
            let log: RequestLog
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                log.add(request.url)
                return .empty(200)
            }
        }
        let e1 = exchange(
            seq: 1, url: "http://mobile.conform.invalid/mobile/1/baseurl?x=1", responseHeaders: [:], flow: "a")
        let e2 = exchange(
            seq: 2, url: "http://backend.conform.invalid/push/2/message/single", responseHeaders: [:], flow: "backend")
        let replayer = Replayer(
            transport: Spy(log: seen),
            options: ReplayOptions(
                profile: .mobileMessaging, origins: ["mobile": "http://127.0.0.1:8080/", "*": "http://127.0.0.1:9090"]))
        _ = try await replayer.replay([e1, e2])
        #expect(
            seen.all == ["http://127.0.0.1:8080/mobile/1/baseurl?x=1", "http://127.0.0.1:9090/push/2/message/single"])
    }

    @Test func transportFailuresAreCountedNotThrown() async throws {
        struct Down: Transport {
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                throw TransportError(.connectionRefused, "127.0.0.1:1")
            }
        }
        let summary = try await Replayer(transport: Down(), options: ReplayOptions(profile: .mobileMessaging)).replay([
            exchange(url: "/a")
        ])
        #expect(summary.failed == 1)
        #expect(
            summary.mismatches.first?.description
                == "exchange 1 (flow f): POST /a: error: connection refused: 127.0.0.1:1")
    }

    @Test func identifierMapReplacesWholeTokensOnly() {
        var map = IdentifierMap(["abc-123": "zzz-999", "a.b@c": "x.y@z"])
        #expect(
            map.apply("/x/abc-123/y?id=abc-123&o=abc-1234 abc-123_17")
                == "/x/zzz-999/y?id=zzz-999&o=abc-1234 zzz-999_17")
        #expect(map.apply("to a.b@c") == "to x.y@z")
        map.set("ab", "cd")
        #expect(map.apply("ab") == "ab")
        // Ids of any length, past the lengths counted one by one too, and text in non-contiguous storage.
        let long = String(repeating: "L", count: 300)
        map.set(long, "short-id")
        #expect(map.apply("/x/\(long)/y \(long)L") == "/x/short-id/y \(long)L")
        let bridged = NSString(string: "id=abc-123").description
        #expect(map.apply(bridged) == "id=zzz-999")
    }
}

final class RequestLog: Sendable {
    private let urls = Mutex<[String]>([])
    func add(_ url: String) { urls.withLock { $0.append(url) } }
    var all: [String] { urls.withLock { $0 } }
}

@Suite struct IdentifierMapTests {
    @Test func transientIdsAreBoundedDeviceIdsAreNot() {
        var map = IdentifierMap()
        map.transientLimit = 10
        for i in 0..<10_000 {
            map.learn(
                recorded: ["pushRegId": .string("reg-\(i)"), "messageId": .string("msg-\(i)")],
                live: ["pushRegId": .string("live-reg-\(i)"), "messageId": .string("live-msg-\(i)")],
                minted: MobileMessaging.replay.minted)
        }
        #expect(map.mapping.count == 10_000 + 10)
        #expect(map.apply("reg-0 msg-9999 msg-0") == "live-reg-0 live-msg-9999 msg-0")
    }

    /// A text shorter than every id is not searched; once the shortest ids are forgotten, texts of the length of
    /// the ones left still are, and ids longer than the longest length counted one by one still match.
    @Test func textsAreSearchedForEveryIdLongEnoughToBeInThem() {
        var map = IdentifierMap()
        map.transientLimit = 2
        let long = String(repeating: "L", count: 200)
        map.set(long, "long-live")
        map.set("dev-12345678", "dev-live")
        #expect(map.apply("dev-1234567") == "dev-1234567")
        #expect(map.apply("/x/dev-12345678") == "/x/dev-live")
        // Short transient ids come and go: the shortest length follows them.
        for i in 0..<6 {
            map.learn(
                recorded: ["messageId": .string("m\(i)x")], live: ["messageId": .string("live-m\(i)")],
                minted: MobileMessaging.replay.minted)
        }
        #expect(map.apply("m5x m0x") == "live-m5 m0x")
        #expect(map.apply("a \(long) b") == "a long-live b")
        let request = map.apply(
            HTTPRequest(method: .get, url: "/m0x", headerFields: ["Authorization": "App dev-12345678", "X": "dev"]))
        #expect(request.headerFields.fields.map(\.value) == ["App dev-live", "dev"])
        #expect(request.url == "/m0x")
    }

    /// The token bytes are exactly `[A-Za-z0-9-]`, over all 256 byte values.
    @Test func tokenBytesAreLettersDigitsAndHyphens() {
        for byte in 0...255 {
            let expected =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D
            #expect(IdentifierMap.isTokenByte(UInt8(byte)) == expected, "byte \(byte)")
        }
    }
}
