import ConformCore
import ConformCrypto
import ConformMobileMessaging
import ConformTestSupport
import Foundation
import Testing

@testable import ConformTraffic

@Suite struct RedactionTests {
    static let appCode = "b7f3c1d2e4a5968778a1"
    static let apiKey = "9c1d2e3f4a5b6c7d8e9f-prod"
    static let email = "ana.kovac@mail-provider.hr"
    static let phone = "385981234567"
    static let fcm = "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx0123456789abcdefghij"
    static let jwt =
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjdXN0LTQyIiwiaW5mb2JpcC1hcGkta2V5IjoiYjdmM2MxZDJlNGE1OTY4Nzc4YTEiLCJlbWFpbCI6ImFuYS5rb3ZhY0BtYWlsLXByb3ZpZGVyLmhyIn0.c2lnbmF0dXJlLWJ5dGVzLWhlcmU"

    static func seededExchanges() -> [RecordedExchange] {
        [
            exchange(
                seq: 1, url: "http://m/mobile/1/appinstance?ri=true",
                headers: ["Authorization": "App \(appCode)", "applicationcode": "0a1b2c3d4e", "Content-Length": "80"],
                body: #"{"pushServiceToken":"\#(fcm)","os":"Android"}"#,
                responseBody: #"{"pushRegId":"reg-1","pushServiceToken":"\#(fcm)"}"#),
            exchange(
                seq: 2, url: "http://m/mobile/1/appinstance/reg-1/personalize?forceDepersonalize=false",
                headers: [
                    "Authorization": "Bearer \(jwt)", "pushregistrationid": "reg-1", "X-Session-Secret": "s3cr3t-value",
                ],
                body:
                    #"{"userIdentity":{"externalUserId":"cust-42","phones":[{"number":"\#(phone)"}],"emails":[{"address":"\#(email)"}]},"userAttributes":{"customAttributes":{"ssn":"123-45-6789","note":"call +385981234567 or ACC-00112233"}}}"#,
                responseBody: #"{"externalUserId":"cust-42","emails":[{"address":"\#(email)","preferred":false}]}"#),
            exchange(
                seq: 3, url: "http://b/people/2/contactInformation/push/reg-1/personalize",
                headers: ["Authorization": "App \(apiKey)", "AppCode": appCode],
                body: #"{"identity":{"externalId":"cust-42","phoneNumber":"+\#(phone)"}}"#),
            exchange(
                seq: 4, url: "http://b/push/2/message/single", headers: ["Authorization": "App \(apiKey)"],
                body: #"{"from":"\#(appCode)","to":{"externalUserId":"cust-42"},"text":"Hi"}"#),
        ]
    }

    static let policy = RedactionPolicy(
        profile: .mobileMessaging, headers: ["X-Session-Secret"],
        jsonPaths: [JSONPathPattern("$..customAttributes.ssn")!],
        patterns: ["ACC-[0-9]{8}"])

    @Test func seededSecretsNeverReachTheDisk() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir, profile: .mobileMessaging, redaction: Self.policy)
        for e in Self.seededExchanges() {
            try writer.append(
                upstream: e.upstream, request: e.request, response: e.response, startedAt: e.startedAt,
                durationMs: e.durationMs)
        }
        writer.close()
        let text = try String(contentsOfFile: dir + "/exchanges.jsonl", encoding: .utf8)
        for secret in [
            Self.appCode, Self.apiKey, Self.email, Self.phone, Self.fcm, Self.jwt, "s3cr3t-value", "123-45-6789",
            "ACC-00112233", "0a1b2c3d4e", "c2lnbmF0dXJlLWJ5dGVzLWhlcmU",
        ] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        #expect(try SecretScanner(profile: .mobileMessaging).scan(paths: [dir]) == [])
        // Still replayable: identifiers and structure are intact.
        let back = try readAll(dir)
        #expect(back.count == 4)
        #expect(back[0].flow == "reg-1")
        #expect(back[1].request.headerFields["pushregistrationid"] == "reg-1")
        #expect(text.contains("cust-42"))
    }

    @Test func pseudonymsAreConsistentAndShaped() throws {
        let redactor = testRedactor(Self.policy)
        let out = Self.seededExchanges().map(redactor.redact)
        let mobileAuth = try #require(out[0].request.headerFields["Authorization"])
        #expect(mobileAuth.hasPrefix("App redacted-"))
        let code = String(mobileAuth.dropFirst(4))
        #expect(out[2].request.headerFields["AppCode"] == code)
        let push = try JSONValue.parse(out[3].request.body)
        #expect(push["from"]?.stringValue == code)
        #expect(out[0].request.headerFields["applicationcode"]?.count == 10)
        #expect(out[0].request.headerFields["Content-Length"] == String(out[0].request.body.count))

        let personalize = try JSONValue.parse(out[1].request.body)
        let email = try #require(personalize[path: JSONPath(parsing: "$.userIdentity.emails[0].address")!]?.stringValue)
        #expect(email.hasSuffix("@redacted.invalid"))
        #expect(email.hasPrefix("user-"))
        let response = try JSONValue.parse(out[1].response.body)
        #expect(response[path: JSONPath(parsing: "$.emails[0].address")!]?.stringValue == email)
        let phone = try #require(personalize[path: JSONPath(parsing: "$.userIdentity.phones[0].number")!]?.stringValue)
        #expect(phone.count == Self.phone.count)
        #expect(phone.allSatisfy { $0.isNumber })
        #expect(phone.hasPrefix("000"))
        let note = personalize[path: JSONPath(parsing: "$.userAttributes.customAttributes.note")!]?.stringValue ?? ""
        #expect(note.hasPrefix("call +\(phone) or redacted-"))
        #expect(
            personalize[path: JSONPath(parsing: "$.userAttributes.customAttributes.ssn")!]?.stringValue?.hasPrefix(
                "redacted-") == true)
        #expect(out[1].request.headerFields["X-Session-Secret"]?.hasPrefix("redacted-") == true)
        // Backend phone keeps its '+' and maps to the same digits.
        let backend = try JSONValue.parse(out[2].request.body)
        #expect(backend[path: JSONPath(parsing: "$.identity.phoneNumber")!]?.stringValue == "+" + phone)
        // Registration token and response token agree.
        let token = try JSONValue.parse(out[0].request.body)["pushServiceToken"]?.stringValue
        #expect(token?.hasPrefix("redacted-token-") == true)
        #expect(try JSONValue.parse(out[0].response.body)["pushServiceToken"]?.stringValue == token)
    }

    @Test func bearerJWTStaysJWTShapedWithSubjectKept() throws {
        let redactor = testRedactor()
        let value = redactor.redact(Self.seededExchanges()[1]).request.headerFields["Authorization"]!
        #expect(value.hasPrefix("Bearer "))
        let token = String(value.dropFirst(7))
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        let header = try JSONValue.parse(Data(Base64URL.decode(String(parts[0]))!))
        #expect(header["kid"] == "conform-redacted")
        let claims = try JSONValue.parse(Data(Base64URL.decode(String(parts[1]))!))
        #expect(claims["sub"] == "cust-42")
        #expect(claims["email"]?.stringValue?.hasSuffix("@redacted.invalid") == true)
        #expect(claims["infobip-api-key"]?.stringValue?.hasPrefix("redacted-") == true)
        // Idempotent: redacting a redacted token keeps it.
        #expect(redactor.redact(text: token) == token)
    }

    @Test func referenceCredentialsAndUnchangedBodiesAreKeptByteExact() {
        let redactor = testRedactor()
        let body = "{ \"a\" : 1.50,\n \"externalUserId\": \"cust-42\" }"
        let e = exchange(url: "/mobile/1/appinstance", headers: ["Authorization": "App conform-app-code"], body: body)
        let out = redactor.redact(e)
        #expect(out.request.headerFields["Authorization"] == "App conform-app-code")
        #expect(out.request.body == Data(body.utf8))
    }

    /// Derived pseudonyms are kept in a bounded table: past its capacity it starts again, and every value still gets
    /// the pseudonym it got the first time.
    @Test func pseudonymsStayTheSameWhenTheirTableStartsAgain() {
        let pseudonyms = Pseudonymizer(digest: HMACKeyedDigest(key: Array("k".utf8)))
        let first = pseudonyms.credential("app-code-0")
        for i in 0..<(PseudonymMemo.capacity + 10) { _ = pseudonyms.credential("app-code-\(i)") }
        #expect(pseudonyms.credential("app-code-0") == first)
        let long = String(repeating: "s", count: PseudonymMemo.longestValue + 1)
        #expect(pseudonyms.opaque(long) == pseudonyms.opaque(long))
        #expect(Pseudonymizer(digest: HMACKeyedDigest(key: Array("k".utf8))).credential("app-code-0") == first)
    }

    @Test func differentKeysGiveDifferentPseudonyms() {
        let a = Redactor(policy: .default).redact(text: Self.email)
        let b = Redactor(policy: .default).redact(text: Self.email)
        #expect(a != b)
        #expect(a.hasSuffix("@redacted.invalid"))
    }
}
