import ConformCore
import ConformMobileMessaging
import Foundation
import Testing

@testable import ConformTraffic

@Suite struct RecordingFormatTests {
    @Test func lineHasStableKeyOrderAndRoundTrips() throws {
        let e = exchange(
            seq: 7, url: "http://mobile.conform.invalid/mobile/1/appinstance?ri=true",
            headers: ["Authorization": "App conform-app-code", "Content-Type": "application/json"],
            body: "{\"pushServiceToken\":\"t\",  \"x\": 1.50}", responseBody: "{\"pushRegId\":\"r1\"}")
        let line = e.jsonLine()
        #expect(
            line.hasPrefix(
                "{\"seq\":7,\"flow\":\"f\",\"upstream\":\"mobile\",\"startedAt\":\"2026-01-05T08:00:00.123Z\",\"durationMs\":1.5,\"request\":{\"method\":\"POST\""
            ))
        #expect(line.hasSuffix("}}\n"))
        #expect(line.filter { $0 == "\n" }.count == 1)
        let back = try RecordedExchange(jsonLine: Array(line.utf8.dropLast()))
        #expect(back == e)
        // JSON bodies are text, byte exact (spacing and 1.50 kept).
        #expect(line.contains(#""body":"{\"pushServiceToken\":\"t\",  \"x\": 1.50}""#))
    }

    @Test func binaryAndControlCharacterBodiesAreByteExact() throws {
        var e = exchange(url: "/x")
        e.request.body = Data([0xFF, 0x00, 0x41, 0xC3])
        e.response.body = Data("line1\r\nline2\t\u{0}é😀\"\\".utf8)
        let line = e.jsonLine()
        #expect(line.contains("\"bodyBase64\":\"/wBBww==\""))
        let back = try RecordedExchange(jsonLine: Array(line.utf8))
        #expect(back.request.body == e.request.body)
        #expect(back.response.body == e.response.body)
        #expect(back == e)
    }

    @Test func timestampsRoundTripToTheMillisecond() {
        for ms: Int64 in [0, 1, 999, 1_767_600_000_123, -1, 253_402_300_799_999] {
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            let text = ISOTimestamp.format(date)
            #expect(ISOTimestamp.parse(text) == date, "\(text)")
        }
        #expect(ISOTimestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ISOTimestamp.parse("2026-01-05T10:00:00.5+01:00") == ISOTimestamp.parse("2026-01-05T09:00:00.500Z"))
        #expect(
            ISOTimestamp.parse("2026-01-05T10:00:00.123456789-0130") == ISOTimestamp.parse("2026-01-05T11:30:00.123Z"))
        #expect(ISOTimestamp.parse("2026-13-05T10:00:00Z") == nil)
        #expect(ISOTimestamp.parse("garbage") == nil)
    }

    @Test func wrongFieldsNameTheirPath() {
        #expect(throws: RecordingLineError(path: "$.request.url", message: "missing")) {
            try RecordedExchange(
                jsonLine: Array(
                    #"{"seq":1,"flow":"f","upstream":"m","startedAt":"2026-01-05T08:00:00.000Z","durationMs":1,"request":{"method":"GET"},"response":{"status":200}}"#
                        .utf8))
        }
        #expect(throws: RecordingLineError(path: "$.response.headers[0]", message: "expected [name, value] strings")) {
            try RecordedExchange(
                jsonLine: Array(
                    #"{"seq":1,"flow":"f","upstream":"m","startedAt":"2026-01-05T08:00:00.000Z","durationMs":1,"request":{"method":"GET","url":"/"},"response":{"status":200,"headers":[["a"]]}}"#
                        .utf8))
        }
    }

    @Test func flowKeys() {
        let flows = ProtocolProfile.mobileMessaging.flows
        let reg = HTTPRequest(method: .post, url: "http://m/mobile/1/appinstance?ri=true")
        #expect(flows.flow(request: reg, response: .json(200, ["pushRegId": "abc"])) == "abc")
        let user = HTTPRequest(
            method: .get, url: "/mobile/1/appinstance/other/user", headerFields: ["pushregistrationid": "own"])
        #expect(flows.flow(request: user, response: nil) == "own")
        #expect(
            flows.flow(
                request: HTTPRequest(method: .post, url: "/people/2/contactInformation/push/p9/personalize"),
                response: nil)
                == "p9")
        #expect(
            flows.flow(
                request: HTTPRequest(method: .post, url: "/push/2/message/single"), response: nil)
                == "backend")
    }
}
