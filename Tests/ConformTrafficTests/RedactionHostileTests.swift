import ConformCore
import ConformMobileMessaging
import ConformTestSupport
import Foundation
import Testing

@testable import ConformTraffic

/// Secrets in the places a first version of redaction missed, and a scanner that finds them anywhere, in time
/// linear in the line.
@Suite struct RedactionHostileTests {
    static let seeded = [
        "/mobile/1/x?apiKey=sk-live-4f9a2b7c", "/mobile/1/x?api_key=sk-live-4f9a2b7c",
        "/mobile/1/x?a=1&access_token=ya29.a0AfH6SM", "/people/2/persons?identifier=385911234567&type=PHONE",
        "/people/2/persons?type=phone&identifier=%2B385911234567",
    ]

    @Test(arguments: seeded)
    func queryCredentialsAndPhoneIdentifiersAreRedacted(_ url: String) {
        let redacted = testRedactor().redact(HTTPRequest(method: .get, url: url)).url
        for secret in ["sk-live-4f9a2b7c", "ya29.a0AfH6SM", "385911234567"] { #expect(!redacted.contains(secret)) }
        #expect(redacted.hasPrefix(String(url.prefix { $0 != "?" })))
        #expect(
            SecretScanner(profile: .mobileMessaging).scan(text: url, file: "f").count == 1,
            "scan finds the seeded secret in \(url)")
        #expect(SecretScanner(profile: .mobileMessaging).scan(text: redacted, file: "f").isEmpty, "\(redacted)")
    }

    @Test func cookiesAndAPIKeyHeadersAreRedactedKeepingNames() {
        let request = HTTPRequest(
            method: .get, url: "/x",
            headerFields: ["Cookie": "session=s3cr3t-abc; theme=dark", "X-Api-Key": "key-live-778899"])
        let response = HTTPResponse(status: 200, headerFields: ["Set-Cookie": "session=s3cr3t-abc; Path=/; HttpOnly"])
        let redactor = testRedactor()
        let outRequest = redactor.redact(request)
        let outResponse = redactor.redact(response)
        #expect(outRequest.headerFields["Cookie"]?.hasPrefix("session=redacted-") == true)
        #expect(outRequest.headerFields["Cookie"]?.contains("; theme=redacted-") == true)
        #expect(outRequest.headerFields["X-Api-Key"]?.hasPrefix("redacted-") == true)
        #expect(outResponse.headerFields["Set-Cookie"]?.hasSuffix("; Path=/; HttpOnly") == true)
        #expect(outResponse.headerFields["Set-Cookie"]?.contains("s3cr3t") == false)

        let plain = exchange(url: "/x", responseBody: "")
        var leaked = plain
        leaked.request = request
        leaked.response = response
        let findings = SecretScanner(profile: .mobileMessaging).scan(text: leaked.jsonLine(), file: "f")
        #expect(Set(findings.map(\.kind)) == [.cookie, .credential], "\(findings)")
        var clean = plain
        clean.request = outRequest
        clean.response = outResponse
        #expect(SecretScanner(profile: .mobileMessaging).scan(text: clean.jsonLine(), file: "f").isEmpty)
    }

    @Test func phonesInUserIdentityArraysAndFreeTextAreRedacted() throws {
        let body = #"{"userIdentity":{"phones":["385911234567","+385 91 765 4321"]},"note":"call +1-202-555-0142"}"#
        let redacted = String(decoding: testRedactor().redact(body: Data(body.utf8)), as: UTF8.self)
        for secret in ["385911234567", "765 4321", "555-0142"] { #expect(!redacted.contains(secret), "\(redacted)") }
        let value = try JSONValue.parse(Data(redacted.utf8))
        #expect(value["userIdentity"]?["phones"]?[0]?.stringValue?.hasPrefix("000") == true)
        #expect(SecretScanner(profile: .mobileMessaging).scan(text: body, file: "f").count == 3)
        #expect(SecretScanner(profile: .mobileMessaging).scan(text: redacted, file: "f").isEmpty, "\(redacted)")
    }

    @Test func aNulByteDoesNotHideAFile() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/x.jsonl"
        try Data("binary\u{0}prefix\n{\"email\":\"ana.kovac@mail.example.org\"}\n".utf8).write(
            to: URL(fileURLWithPath: file))
        let findings = try SecretScanner(profile: .mobileMessaging).scan(file: file)
        #expect(findings.map(\.line) == [2])
    }

    /// A hostile line of megabytes, named by its shape: a test's argument is printed with its result, so the line
    /// itself is built in the test, not passed in (six of them printed whole made a 23 MB log).
    struct HostileLine: Sendable, CustomTestStringConvertible {
        let prefix: String
        let unit: String
        let count: Int
        let suffix: String
        var line: String { prefix + String(repeating: unit, count: count) + suffix }
        var testDescription: String { "\(prefix)(\(unit) × \(count))\(suffix)" }
        init(prefix: String = "", _ unit: String, _ count: Int, suffix: String = "") {
            (self.prefix, self.unit, self.count, self.suffix) = (prefix, unit, count, suffix)
        }
    }

    /// A hostile line: megabytes of characters a backtracking pattern retries from every start.
    @Test(arguments: [
        HostileLine("a", 4_000_000, suffix: "@"), HostileLine("a.", 2_000_000, suffix: "@x"),
        HostileLine(prefix: "x@", "a.", 2_000_000), HostileLine("eyJ", 1_000_000, suffix: ".eyJ"),
        HostileLine("eyJabcdef.", 400_000), HostileLine("@a", 2_000_000),
    ])
    func findersDoLinearWork(_ hostile: HostileLine) {
        let line = hostile.line
        var work = LinearFinder.Work()
        _ = LinearFinder.emails(in: line, work: &work)
        _ = LinearFinder.jwts(in: line, work: &work)
        #expect(work.steps <= 8 * line.utf8.count, "\(work.steps) steps for \(line.utf8.count) bytes")
    }

    @Test(arguments: [
        ("mail ana.kovac@mail.example.org now", ["ana.kovac@mail.example.org"]),
        ("a@b.com1 x@y..com u@v.co-x.y @z.com w@q.c", ["a@b.com", "u@v.co"]),
        (
            "t eyJhbGciOi.eyJzdWIiOi.sig and xxeyJhbGciOi.eyJzdWIiOi. end",
            ["eyJhbGciOi.eyJzdWIiOi.sig", "eyJhbGciOi.eyJzdWIiOi."]
        ),
        ("eyJabc.eyJzdWIiOi.sig eyJhbGciOi.eyJzd.x", []),
    ])
    func findersAgreeWithThePatternsTheyReplace(_ text: String, _ expected: [String]) throws {
        let found = (LinearFinder.emails(in: text) + LinearFinder.jwts(in: text)).map { String(text[$0]) }
        #expect(found == expected)
        let regexes = [
            try NSRegularExpression(pattern: "[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}"),
            try NSRegularExpression(pattern: "eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*"),
        ]
        let byRegex = regexes.flatMap { regex in
            regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
                Range($0.range, in: text).map { String(text[$0]) }
            }
        }
        #expect(found == byRegex)
    }

    @Test func byteSearchFindsWhatContainsFinds() {
        for (text, needle) in [("abcabd", "abd"), ("aab", "ab"), ("xyz", "yza"), ("é@x", "@"), ("", "a"), ("a", "")] {
            #expect(text.containsBytes(needle) == (needle.isEmpty || text.contains(needle)), "\(text) \(needle)")
        }
    }
}

/// Credentials seen in headers are replaced wherever they reappear, by lookup, not by trying each one in turn.
@Suite struct KnownSecretsTests {
    @Test func replacesTheLongestKnownSecretAtEachPlace() {
        var known = KnownSecrets()
        known.insert("key-10", pseudonym: "P10")
        known.insert("key-100", pseudonym: "P100")
        known.insert("short", pseudonym: "never")
        #expect(known.replacing(in: "a key-100 b key-10 c key-1000") == "a P100 b P10 c P1000")
        #expect(known.replacing(in: "short and sweet") == "short and sweet")
        #expect(known.replacing(in: "ключ key-10 ключ") == "ключ P10 ключ")
    }

    /// A recording where every exchange brings a new credential: each one is still found among many.
    @Test func manySecretsStayFindable() {
        var known = KnownSecrets()
        for i in 0..<50_000 { known.insert("app-code-\(i)", pseudonym: "pseudo-\(i)") }
        #expect(
            known.replacing(in: #"{"from":"app-code-49999","to":"app-code-7"}"#)
                == #"{"from":"pseudo-49999","to":"pseudo-7"}"#)
    }
}
