import ConformCore
import ConformMobileMessaging
import Foundation
import Testing

@testable import ConformTraffic

/// The recorder's byte paths against the paths they replaced: the exchange line against the compact text of the
/// tree of its members, and JSON bodies redacted over their bytes against the same bodies redacted through their tree,
/// on hostile inputs (control characters, invalid UTF-8, huge headers, escapes, duplicate names, secrets at depth).
@Suite struct RecordingBytesTests {
    /// The line as the tree of its members in the writer's order, written compact: what the line must be.
    static func treeLine(_ e: RecordedExchange) -> String {
        func headers(_ fields: HTTPFields) -> JSONValue {
            .array(fields.map { .array([.string($0.name), .string($0.value)]) })
        }
        func message(_ head: [(String, JSONValue)], _ fields: HTTPFields, _ body: Data) -> JSONValue {
            var members = head + [("headers", headers(fields))]
            if !body.isEmpty {
                if let text = String(validating: body, as: UTF8.self) {
                    members.append(("body", .string(text)))
                } else {
                    members.append(("bodyBase64", .string(body.base64EncodedString())))
                }
            }
            return .object(JSONObject(members))
        }
        var status: [(String, JSONValue)] = [("status", .int(e.response.status.code))]
        if let version = e.response.httpVersion, version != "HTTP/1.1" {
            status.append(("httpVersion", .string(version)))
        }
        var members: [(String, JSONValue)] = [
            ("seq", .int(e.seq)), ("flow", .string(e.flow)), ("upstream", .string(e.upstream)),
            ("startedAt", .string(ISOTimestamp.format(e.startedAt))), ("durationMs", .double(e.durationMs)),
            (
                "request",
                message(
                    [("method", .string(e.request.method.rawValue)), ("url", .string(e.request.url))],
                    e.request.headerFields, e.request.body)
            ),
            ("response", message(status, e.response.headerFields, e.response.body)),
        ]
        if !e.omitted.isEmpty { members.append(("omitted", .array(e.omitted.map { .string($0) }))) }
        if e.resynchronised { members.append(("resynchronised", .bool(true))) }
        return JSONValue.object(JSONObject(members)).serialized() + "\n"
    }

    static let control = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })

    static var hostileExchanges: [RecordedExchange] {
        var invalid = exchange(url: "/mobile/1/x?q=\"quoted\"\\back", body: "")
        invalid.request.body = Data([0xFF, 0xFE, 0x00, 0x22, 0x5C, 0xC3])
        invalid.response.body = Data([0xED, 0xA0, 0x80])  // a UTF-16 surrogate written as UTF-8: not valid UTF-8
        invalid.response.httpVersion = "HTTP/2"
        var controls = exchange(
            url: "/mobile/1/\(control)", headers: ["X-C": control + "\u{7F}\"\\"], body: control + "é😀\u{2028}",
            responseBody: "{\"a\":\"\(control)\"}", flow: "flow\u{0}\"\\")
        controls.omitted = ["note \"one\"", "\u{1}"]
        controls.resynchronised = true
        controls.durationMs = 1234.5678
        var huge = exchange(
            url: "/mobile/1/x", headers: ["X-Huge": String(repeating: "h\"", count: 70_000)],
            body: String(repeating: "{\"e\":\"a@b.com\"}", count: 5000))
        huge.response.headerFields = HTTPFields((0..<200).map { HTTPFields.Field(name: "X-\($0)", value: "\($0)") })
        var dates: [RecordedExchange] = []
        for seconds in [0, -0.001, -86_400 * 365 * 3000.0, 253_402_300_799.999, 253_402_300_800, 1_767_600_000.9996] {
            var dated = exchange(seq: 99_999_999, url: "/d")
            dated.startedAt = Date(timeIntervalSince1970: seconds)
            dated.durationMs = seconds
            dates.append(dated)
        }
        return [exchange(url: "/mobile/1/appinstance"), invalid, controls, huge] + dates
    }

    @Test func theLineIsTheTreeOfItsMembersWrittenCompact() throws {
        for e in Self.hostileExchanges {
            let line = e.jsonLine()
            #expect(line == Self.treeLine(e), "\(e.request.url.prefix(40))")
            #expect(e.jsonLineBytes() == Array(line.utf8))
            // Read back where the reader takes the line (no control characters in a URL or a field, a year it reads).
            if e.request.headerFields.count <= HTTPFields.maxCount,
                e.response.headerFields.count <= HTTPFields.maxCount,
                HTTPSyntax.problem(in: e.request) == nil, ISOTimestamp.parse(ISOTimestamp.format(e.startedAt)) != nil
            {
                let read = try RecordedExchange(jsonLine: Array(line.utf8.dropLast()))
                #expect(read.request.body == e.request.body)
                #expect(read.response.body == e.response.body)
                #expect(read.request.headerFields == e.request.headerFields)
            }
        }
    }

    @Test func aBoundedLineIsTheSameBytesAsItsText() {
        for e in Self.hostileExchanges {
            for limit in [300, 4096, 1 << 20, RecordingLayout.maxLineBytes] {
                let bytes = e.boundedJSONLineBytes(limit: limit)
                #expect(String(decoding: bytes, as: UTF8.self) == e.boundedJSONLine(limit: limit))
                #expect(bytes.count <= max(limit, 2000), "limit \(limit)")
            }
        }
    }

    @Test func timestampsAreWrittenAsTheyAreFormatted() {
        for seconds in [0, -0.001, -1e11, 1e9, 253_402_300_799.999, 253_402_300_800, 1_767_600_000.9996] {
            let date = Date(timeIntervalSince1970: seconds)
            var bytes: [UInt8] = []
            ISOTimestamp.write(date, into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == ISOTimestamp.format(date), "\(seconds)")
        }
    }

    static let bodies: [String] = [
        #"{"pushServiceToken":"fcm-bench","pushServiceType":"Firebase","os":"Android","osVersion":"14"}"#,
        #"{"a":{"b":[{"c":{"email":"x@y.com","phones":["+385911234567",385911234567,12]}}]},"phone":"+1 202 555 0142"}"#,
        #"{ "email" : "a@b.com" }"#, "  {\"email\":\"a@b.com\"}", "{\"email\":\"a@b.com\"}\n",
        #"{"e":"a\u0040b.com","f":"c@d.com"}"#, #"{"t":"x\/y@z.com"}"#, #"{"t":"x\/y"}"#,
        #"{"s":"line\nbreak +385911234567\t\"q\"\\"}"#, "{\"s\":\"raw\u{1}control a@b.com\"}",
        #"{"email":"a@b.com","email":"c"}"#, #"{"pushServiceToken":"x","pushServiceToken":"y"}"#,
        #"{"phone":385911234567,"n":-0,"e":"a@b.com"}"#, #"{"f":1.5e3,"e":"a@b.com"}"#, #"{"f":1.50,"g":1}"#,
        #"{"big":123456789012345678901,"e":"a@b.com"}"#, #"{"phone":-385911234567}"#,
        #"{"inf":1e999,"x@y.com":1}"#, #"{"e":"a@b.com"} x"#, #"{"e":"a@b.com"}}"#, #"["a@b.com","+385911234567"]"#,
        "{}", "[]", "[[]]", "[{},[{}]]", #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":.5}"#, #"{"a":tru}"#,
        #"{"a":nul,"e":"a@b.com"}"#, #"{"a":true,"b":false,"c":null,"e":"a@b.com"}"#, #"{"e\"x":"a@b.com"}"#,
        #"{"név":"é@ü.com","emoji":"😀 +385911234567","mail":"ö@example.org"}"#,
        #"{"token":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl"}"#,
        #"{"pushRegId":"0f8fad5b-d9cb-469f-a165-70867728950e","regEnabled":true,"isPrimary":false}"#,
        #"{"a":"\u00e9@x.com"}"#, #"{"a":"\ud83d\ude00"}"#, #"{"a":"\x"}"#, #"{"a":"unterminated"#, #"{"a" "b"}"#,
        #"{"a":1,}"#, #"[1,]"#, #"{,}"#, "{\"a\":\"b\"", "[", "{",
    ]

    static var generatedBodies: [String] {
        let deep = String(repeating: "[", count: 100) + "\"a@b.com\"" + String(repeating: "]", count: 100)
        let deeper = String(repeating: "{\"phone\":", count: 70) + "385911234567" + String(repeating: "}", count: 70)
        let wide = "{" + (0..<100).map { "\"k\($0)\":\"u\($0)@mail.example.org\"" }.joined(separator: ",") + "}"
        let large =
            "["
            + Array(repeating: #"{"email":"p@q.org","n":1,"s":"\" +385911234567"}"#, count: 20_000)
            .joined(separator: ",") + "]"
        let hugeString = "{\"s\":\"" + String(repeating: "a@b.co ", count: 100_000) + "\"}"
        return [deep, deeper, wide, large, hugeString]
    }

    @Test func jsonBodiesRedactOverBytesAsThroughTheirTree() {
        // Two redactors with the same key, so what one learns (a JWT's credential claim) the other learns alike.
        let bytePath = testRedactor()
        let treePath = testRedactor()
        var invalid = Data(#"{"e":"a@b.com","x":""#.utf8)
        invalid += Data([0xFF, 0x22, 0x7D])
        let inputs = (Self.bodies + Self.generatedBodies).map { Data($0.utf8) } + [invalid, Data([0x7B, 0x7D, 0xC3])]
        for body in inputs {
            let fast = bytePath.redact(body: body)
            let tree = treePath.redactThroughTree(body: body)
            #expect(fast == tree, "\(String(decoding: body.prefix(80), as: UTF8.self))")
        }
    }

    @Test func theCommonBodiesAreTakenOverTheirBytes() {
        let redactor = testRedactor()
        let leaf: JSONLeafScan.Leaf = { value, key, arrayKey, _ in
            redactor.replacement(for: value, at: Redactor.Place(key: key, arrayKey: arrayKey))
        }
        let token = Data(Self.bodies[0].utf8)
        let redacted = JSONLeafScan.redacted(token, leaf: leaf)
        #expect(
            redacted.map { String(decoding: $0, as: UTF8.self).hasPrefix(#"{"pushServiceToken":"redacted-token-"#) }
                == true)
        #expect(redacted == redactor.redactThroughTree(body: token))
        let answer = Data(Self.bodies.first { $0.hasPrefix(#"{"pushRegId""#) }!.utf8)
        #expect(JSONLeafScan.redacted(answer, leaf: leaf) == answer, "nothing to replace: kept as it came")
        // Left to the tree: a changed body not in compact form, a \u escape, a duplicate name.
        for text in [#"{ "email" : "a@b.com" }"#, #"{"e":"a\u0040b.com"}"#, #"{"email":"a@b.com","email":"c"}"#] {
            #expect(JSONLeafScan.redacted(Data(text.utf8), leaf: leaf) == nil, "\(text)")
        }
    }

    /// An `Authorization` value is redacted once per base: later exchanges get the same text, and the same value sent
    /// to another base is still redacted under that base's role.
    @Test func anAuthorizationValueRedactsAlikeEveryTimeAndByThePathsRole() throws {
        let redactor = testRedactor()
        func sent(_ url: String, _ value: String) -> String? {
            redactor.redact(HTTPRequest(method: .get, url: url, headerFields: ["Authorization": value]))
                .headerFields["Authorization"]
        }
        let first = try #require(sent("/mobile/1/appinstance/a", "App code-123456"))
        #expect(first.hasPrefix("App redacted-"))
        #expect(sent("/mobile/2/appinstance/b?x=1", "App code-123456") == first)
        #expect(
            redactor.redactedCredentials == [RedactedCredential(role: "appCode", pseudonym: String(first.dropFirst(4)))]
        )
        #expect(sent("/people/2/persons", "App code-123456") == first, "the same pseudonym")
        #expect(
            redactor.redactedCredentials.map(\.role) == ["appCode", "apiKey"], "the backend's role is named as well")
        #expect(sent("/mobile/1/x", "App  code-123456 ") == first, "spaces around the value are not part of it")
        #expect(sent("/mobile/1/x", "App conform-app-code") == "App conform-app-code", "a public value is kept")
    }

    /// The flow the recorder derives from an answer's bytes is the one the tree gives, whatever the answer holds.
    @Test func theFlowReadOverBytesIsTheTreesFlow() {
        let keys = ProtocolProfile.mobileMessaging.flows
        let answers = [
            #"{"pushRegId":"abc"}"#, #"{"pushRegId":""}"#, #"{"pushRegId":5}"#, #"{"pushRegId":{"a":"b"}}"#,
            #"{"a":{"pushRegId":"deep"}}"#, #"{"pushRegId":"a","pushRegId":"b"}"#, #"[{"pushRegId":"x"}]"#,
            #" {"pushRegId":"ws"}"#, #"{"pushRegId":"\u0041"}"#, #"{"pushRegId":"x\/y"}"#, #"{"pushRegId":"é😀"}"#,
            #"{"pushRegId":"a" "#, #"{"pushRegId":null,"x":1.5}"#,
        ]
        let bodies = answers + Self.bodies + Self.generatedBodies
        for body in bodies {
            for url in ["/mobile/1/appinstance", "/mobile/1/appinstance/from-path/user", "/people/2/persons", "/x"] {
                let request = HTTPRequest(method: .post, url: url)
                let response = HTTPResponse(status: 200, body: Data(body.utf8))
                #expect(
                    keys.recordedFlow(request: request, response: response)
                        == keys.flow(request: request, response: response), "\(url) \(body.prefix(60))")
            }
        }
        let registered = HTTPResponse(status: 200, body: Data(answers[0].utf8))
        #expect(
            keys.recordedFlow(request: HTTPRequest(method: .post, url: "/mobile/1/appinstance"), response: registered)
                == "abc")
        let named = HTTPRequest(method: .get, url: "/mobile/1/x", headerFields: ["pushregistrationid": "hdr"])
        #expect(keys.recordedFlow(request: named, response: registered) == "hdr")
    }

    /// A URL whose query names no credential parameter (read over its bytes) is kept as it is; any name that may be
    /// one, in any case, percent-encoded, or after a `#` that is no fragment mark, goes through the full redaction.
    @Test func aQueryIsSplitOnlyWhenANameMayBeACredential() {
        let redactor = testRedactor()
        for url in ["/mobile/1/appinstance?ri=true", "/x?a=1&os=Android&", "/x?a=1#&apikey=secret-123456", "/x?", "/x"]
        {
            #expect(redactor.redact(query: url) == url)
        }
        for url in [
            "/x?APIKEY=secret-123456", "/x?a=1&Api_Key=secret-123456#frag", "/x?ap%69key=secret-123456",
            "/x?a=1#\u{301}&apikey=secret-123456", "/x?n\u{e9}=1&token=secret-123456",
            "/people/2/persons?TYPE=phone&identifier=385911234567",
        ] {
            let redacted = redactor.redact(query: url)
            #expect(!redacted.contains("secret-123456") && !redacted.contains("385911234567"), "\(url) → \(redacted)")
        }
    }
}
