import ConformCore
import ConformTestSupport
import Foundation
import Testing

@testable import ConformTraffic

@Suite struct HARTests {
    static func load(_ name: String) throws -> [RecordedExchange] {
        let path = fixturePath(name)
        return try importedHAR(Data(contentsOf: URL(fileURLWithPath: path)), file: path)
    }

    @Test func importsChromeDevtools() throws {
        let all = try Self.load("chrome.har")
        #expect(all.count == 2)
        let reg = all[0]
        #expect(reg.seq == 1)
        #expect(reg.request.method == .post)
        #expect(reg.request.url == "https://mobile.conform.invalid/mobile/1/appinstance?ri=true")
        #expect(reg.request.headerFields.map(\.name) == ["accept", "authorization", "content-type"])
        #expect(String(decoding: reg.request.body, as: UTF8.self).hasPrefix("{\"pushServiceToken\":\"web-token-1\""))
        #expect(reg.flow == "7b1f0c9e-reg")
        #expect(reg.upstream == "mobile")
        #expect(reg.durationMs == 41.873)
        #expect(ISOTimestamp.format(reg.startedAt) == "2026-01-05T09:14:02.311Z")
        #expect(all[1].response.body == Data(#"{"type":"LEAD","instances":[]}"#.utf8))
    }

    @Test func importsFirefox() throws {
        let all = try Self.load("firefox.har")
        #expect(all.count == 2)
        #expect(ISOTimestamp.format(all[0].startedAt) == "2026-01-05T09:20:01.250Z")
        #expect(all[0].request.queryValue("forceDepersonalize") == "false")
        #expect(try JSONValue.parse(all[0].request.body)["userIdentity"]?["externalUserId"] == "cust-42")
        #expect(all[1].response.body.isEmpty)
        #expect(all[1].request.body.isEmpty)
        #expect(all.allSatisfy { $0.flow == "7b1f0c9e-reg" })
    }

    @Test func importsCharlesWithBase64Content() throws {
        let all = try Self.load("charles.har")
        #expect(all.count == 2)
        #expect(all[0].response.body == Data(#"{"pushRegId":"ios-reg-0001","os":"iOS"}"#.utf8))
        #expect(all[0].flow == "ios-reg-0001")
        #expect(all[1].request.method == .patch)
        #expect(all[1].response.status == 204)
    }

    @Test func importsMitmproxyWithBinaryBodyAndQueryString() throws {
        let all = try Self.load("mitmproxy.har")
        #expect(all.count == 2)
        #expect(all[0].upstream == "backend")
        #expect(all[0].flow == "backend")
        #expect(ISOTimestamp.format(all[0].startedAt) == "2026-01-05T09:40:10.123Z")
        #expect(all[1].response.body == Data([0x00, 0xFF, 0x10, 0x20]))
        #expect(all[1].request.headerFields.map(\.name) == ["authorization"])
    }

    @Test(arguments: ["chrome.har", "firefox.har", "charles.har", "mitmproxy.har"])
    func roundTripGivesTheSameExchanges(_ name: String) throws {
        let first = try Self.load(name)
        let exported = HAR.export(first)
        let second = try importedHAR(exported)
        #expect(second == first)
        #expect(HAR.export(second) == exported)
        let parsed = try JSONValue.parse(exported)
        #expect(parsed["log"]?["version"] == "1.2")
    }

    @Test func roundTripKeepsNumberingFlowsAndBinaryRequests() throws {
        var e = exchange(seq: 42, url: "/mobile/1/appinstance/x/user/events/custom?validate=1", flow: "dev-9")
        e.request.body = Data([0x01, 0xFE, 0x00])
        e.upstream = "mobile-eu"
        let back = try importedHAR(HAR.export([e]))
        // HAR 1.2 wants absolute URLs: an origin-form one comes back under its upstream's name.
        var absolute = e
        absolute.request.url = "http://mobile-eu.conform.invalid/mobile/1/appinstance/x/user/events/custom?validate=1"
        #expect(back == [absolute])
    }

    /// Every exported `request.url` is absolute (HAR 1.2 section `request`), built from the recorded `Host` when the
    /// recorder kept the origin-form target; `creator.version` is what the caller gives (the kit's own version).
    @Test func exportedURLsAreAbsolute() throws {
        var byHost = exchange(seq: 1, url: "/mobile/1/appinstance?ri=true", flow: "d")
        byHost.request.headerFields["Host"] = "api.example.com:8443"
        var hostile = exchange(seq: 2, url: "/x", flow: "d")
        hostile.request.headerFields["Host"] = "evil/../x y"
        let absolute = exchange(seq: 3, url: "https://m.example/mobile/1/x", flow: "d")
        let har = try JSONValue.parse(HAR.export([byHost, hostile, absolute], version: "9.9.9"))
        let urls = (har["log"]?["entries"]?.arrayValue ?? []).compactMap { $0["request"]?["url"]?.stringValue }
        #expect(
            urls == [
                "http://api.example.com:8443/mobile/1/appinstance?ri=true", "http://backend.conform.invalid/x",
                "https://m.example/mobile/1/x",
            ])
        #expect(har["log"]?["creator"]?["version"] == "9.9.9")
    }

    @Test func errorsNameTheJSONPath() {
        /// The error that refuses the HAR, or else the one that skips its first bad entry.
        func failure(_ text: String) -> String {
            do {
                let document = try HARDocument(Data(text.utf8), file: "t.har")
                return document.skipped.first?.description ?? "no error"
            } catch {
                return error.description
            }
        }
        #expect(
            failure("{\"log\":{}}")
                == "t.har: error: $.log.entries: missing the `entries` array\nhelp: add \"entries\": []")
        #expect(
            failure(#"{"log":{"entries":[{"request":{"url":"http://x/"},"response":{"status":200}}]}}"#)
                .hasPrefix("t.har: error: $.log.entries[0].request.method: missing or not a string"))
        #expect(
            failure(#"{"log":{"entries":[{"request":{"method":"GET","url":"http://x/"},"response":{"status":"ok"}}]}}"#)
                .hasPrefix("t.har: error: $.log.entries[0].response.status: missing or not an integer"))
        #expect(
            failure(
                #"{"log":{"entries":[{"request":{"method":"GET","url":"/","headers":[{"value":"x"}]},"response":{"status":200}}]}}"#
            )
            .hasPrefix("t.har: error: $.log.entries[0].request.headers[0].name"))
        #expect(
            failure(
                #"{"log":{"entries":[{"request":{"method":"GET","url":"/"},"response":{"status":200,"content":{"text":"%%%","encoding":"base64"}}}]}}"#
            )
            .hasPrefix("t.har: error: $.log.entries[0].response.content.text: not valid base64"))
        #expect(failure("{\"log\": [").hasPrefix("t.har:1:10: error: not JSON"))
        #expect(failure("\u{FF}garbage").hasPrefix("t.har:1:1: error: not JSON"))
    }
}
