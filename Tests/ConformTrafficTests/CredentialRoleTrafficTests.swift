import ConformCore
import ConformMobileMessaging
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@testable import ConformFlowCheck
@testable import ConformReplay
@testable import ConformTraffic

/// Credential roles below the command line: which role a redacted value has, the metadata that names them, the
/// matching of application codes, and the transport that sends live values.
@Suite struct CredentialRoleTrafficTests {
    static let policy = RedactionPolicy(profile: .mobileMessaging)

    @Test func theRoleComesFromWhereTheProfileSaysTheCredentialIs() throws {
        let redactor = Redactor(policy: Self.policy)
        let mobile = redactor.redact(
            HTTPRequest(
                method: .get, url: "/mobile/1/appinstance/x", headerFields: ["Authorization": "App code-123456"]))
        let people = redactor.redact(
            HTTPRequest(
                method: .get, url: "/people/2/persons",
                headerFields: ["Authorization": "App key-1234567", "AppCode": "code-123456"]))
        let code = try #require(mobile.headerFields["Authorization"]?.dropFirst(4))
        let key = try #require(people.headerFields["Authorization"]?.dropFirst(4))
        #expect(people.headerFields["AppCode"] == String(code), "the same code gets the same pseudonym")
        #expect(
            redactor.redactedCredentials == [
                RedactedCredential(role: "appCode", pseudonym: String(code)),
                RedactedCredential(role: "apiKey", pseudonym: String(key)),
            ])
        #expect(redactor.redactedCredentialCount == 2)
        #expect(redactor.pseudonym(ofCredential: "code-123456") == String(code))
        #expect(redactor.pseudonym(ofCredential: "conform-app-code") == nil, "a public value is kept")
        // Public values are kept, so no role is named for them.
        _ = redactor.redact(
            HTTPRequest(method: .get, url: "/mobile/1/x", headerFields: ["Authorization": "App conform-app-code"]))
        #expect(redactor.redactedCredentials.count == 2)
    }

    @Test func theWriterNamesEachNewCredentialInMetaJSONAndAnAppendKeepsThem() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func write(_ code: String, append: Bool) throws {
            let writer = try RecordingWriter(directory: dir, redaction: Self.policy, append: append)
            try writer.append(
                upstream: "mobile",
                request: HTTPRequest(method: .get, url: "/mobile/1/x", headerFields: ["Authorization": "App \(code)"]),
                response: HTTPResponse(status: 200), startedAt: Date(), durationMs: 1)
            writer.close()
        }
        try write("first-code-1234", append: false)
        let first = try RecordingMeta.load(directory: dir).credentials
        #expect(first.map(\.role) == ["appCode"])
        try write("second-code-5678", append: true)
        let both = try RecordingMeta.load(directory: dir).credentials
        #expect(both.count == 2 && both.first == first.first, "an append adds to what the file named")
        let text = try String(contentsOfFile: dir + "/meta.json", encoding: .utf8)
        #expect(!text.contains("first-code") && !text.contains("second-code"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/meta.json.\(getpid()).tmp"))
    }

    @Test func metadataWithoutCredentialsStillReads() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try
            #"{"format":"conform-recording","version":1,"createdAt":"2026-01-01T00:00:00.000Z","redaction":{"enabled":true,"pseudonyms":"x","rules":[]}}"#
            .write(toFile: dir + "/meta.json", atomically: true, encoding: .utf8)
        let meta = try RecordingMeta.load(directory: dir)
        #expect(meta.redacted && meta.credentials.isEmpty)
        // Malformed members are passed over.
        let listed = RedactedCredential.list(
            try JSONValue.parse(Data(#"[{"role":"appCode","pseudonym":"redacted-1"},{"role":1},"x"]"#.utf8)))
        #expect(listed == [RedactedCredential(role: "appCode", pseudonym: "redacted-1")])
    }

    @Test func codesAreMatchedAsGivenOrThroughTheOnePseudonymLeft() {
        let codes = ApplicationCodes(restricted: ["real-code"], jwt: ["conform-jwt-app-code"])
        let seen: Set<String> = ["redacted-aaaa", "conform-jwt-app-code"]
        let placed = codes.resolve(seen: seen, pseudonyms: ["redacted-aaaa"])
        #expect(placed.aliases == ["real-code": "redacted-aaaa"])
        #expect(placed.absent.isEmpty && placed.ambiguous.isEmpty)
        let configuration = codes.applied(
            to: FlowCheckConfiguration(profile: .mobileMessaging), aliases: placed.aliases)
        #expect(configuration.restrictedApplicationCodes == ["real-code", "redacted-aaaa"])
        #expect(configuration.jwtApplicationCodes == ["conform-jwt-app-code"])

        let two = codes.resolve(
            seen: ["redacted-aaaa", "redacted-bbbb", "conform-jwt-app-code"],
            pseudonyms: ["redacted-aaaa", "redacted-bbbb"])
        #expect(two.aliases.isEmpty)
        #expect(two.ambiguous == [.init(codes: ["real-code"], pseudonyms: ["redacted-aaaa", "redacted-bbbb"])])
        #expect(two.absent.isEmpty)
        // A pseudonym given names its own; the clear code takes the other.
        let named = ApplicationCodes(restricted: ["real-code"], jwt: ["redacted-bbbb"]).resolve(
            seen: ["redacted-aaaa", "redacted-bbbb"], pseudonyms: ["redacted-aaaa", "redacted-bbbb"])
        #expect(named.aliases == ["real-code": "redacted-aaaa"])
        // Nothing redacted: a code not seen is absent.
        #expect(codes.resolve(seen: ["conform-jwt-app-code"], pseudonyms: []).absent == ["real-code"])
    }

    @Test func theCredentialTransportSendsLiveValuesAndTakesThemOutOfTheAnswer() async throws {
        let sent = Mutex<HTTPRequest?>(nil)
        let echo = EchoTransport { request in
            sent.withLock { $0 = request }
            return HTTPResponse(
                status: 200, headerFields: ["X-Echo": request.headerFields["Authorization"] ?? ""], body: request.body)
        }
        let live = LiveCredentials(values: ["redacted-aaaa": "live-secret-123456"], roles: ["appCode"])
        let transport = CredentialTransport(inner: echo, credentials: live)
        let response = try await transport.send(
            HTTPRequest(
                method: .post, url: "/mobile/1/x?c=redacted-aaaa",
                headerFields: ["Authorization": "App redacted-aaaa", "Content-Length": "24"],
                body: Data(#"{"code":"redacted-aaaa"}"#.utf8)))
        let request = try #require(sent.withLock { $0 })
        #expect(request.headerFields["Authorization"] == "App live-secret-123456")
        #expect(request.url == "/mobile/1/x?c=live-secret-123456")
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"code":"live-secret-123456"}"#)
        #expect(request.headerFields["Content-Length"] == "29")
        #expect(response.headerFields["X-Echo"] == "App redacted-aaaa")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"code":"redacted-aaaa"}"#)
    }

    @Test func liveValuesResolveByRoleOrPseudonymAndRefuseWhatCannotBeMapped() throws {
        let recorded = [
            RedactedCredential(role: "appCode", pseudonym: "redacted-aaaa"),
            RedactedCredential(role: "apiKey", pseudonym: "redacted-kkkk"),
        ]
        let live = try LiveCredentials.resolve(
            given: [("appCode", "live-code-1")], environment: ["CONFORM_CREDENTIAL_API_KEY": "live-key-1"],
            recorded: recorded, profile: .mobileMessaging)
        #expect(live.values == ["redacted-aaaa": "live-code-1", "redacted-kkkk": "live-key-1"])
        #expect(live.roles == ["appCode", "apiKey"])
        #expect(throws: LiveCredentials.Problem.self) {
            try LiveCredentials.resolve(
                given: [("appCode", "short")], environment: [:], recorded: recorded, profile: .mobileMessaging)
        }
        let two = recorded + [RedactedCredential(role: "appCode", pseudonym: "redacted-bbbb")]
        #expect(throws: LiveCredentials.Problem.self) {
            try LiveCredentials.resolve(
                given: [("appCode", "live-code-1")], environment: [:], recorded: two, profile: .mobileMessaging)
        }
        let byPseudonym = try LiveCredentials.resolve(
            given: [("redacted-bbbb", "live-code-2")], environment: [:], recorded: two, profile: .mobileMessaging)
        #expect(byPseudonym.values == ["redacted-bbbb": "live-code-2"])
        // The environment passes over a role the recording did not redact.
        let none = try LiveCredentials.resolve(
            given: [], environment: ["CONFORM_CREDENTIAL_APIKEY": "live-key-1"], recorded: [],
            profile: .mobileMessaging)
        #expect(none.values.isEmpty)
    }
}

extension CredentialRoleTrafficTests {
    @Test func refusalsCarryTheHintAndMostRefusedMakeTheSummarySaySo() {
        func outcome(_ status: Int) -> ReplayOutcome {
            ReplayOutcome(
                seq: 1, flow: "f", request: HTTPRequest(method: .get, url: "/mobile/1/x"),
                expected: HTTPResponse(status: 200), actual: HTTPResponse(status: HTTPStatus(status)),
                differences: [Mismatch(path: "status", expected: "200", actual: "\(status)")], transportError: nil)
        }
        let recorded = [RedactedCredential(role: "appCode", pseudonym: "redacted-aaaa")]
        let hints = CredentialHints(
            recorded: recorded, redacted: true, live: LiveCredentials(), profile: .mobileMessaging)
        let refused = hints.annotate(outcome(401))
        #expect(
            refused.differences.first?.note
                == "the recording's credentials are pseudonyms: the application code is redacted as redacted-aaaa "
                + "(--credential appCode=VALUE or CONFORM_CREDENTIAL_APPCODE)")
        #expect(hints.annotate(outcome(500)).differences.first?.note == nil, "only a 401 carries the hint")
        #expect(hints.summary?.hasPrefix("1 of 2 exchanges answered 401") != true, "half is not most")
        _ = hints.annotate(outcome(401))
        #expect(hints.summary?.hasPrefix("2 of 3 exchanges answered 401: the recording's credentials") == true)

        // A recording written before roles were named: the hint says to map each pseudonym.
        let old = CredentialHints(recorded: [], redacted: true, live: LiveCredentials(), profile: .mobileMessaging)
        #expect(old.annotate(outcome(401)).differences.first?.note?.contains("--credential PSEUDONYM=VALUE") == true)
        // Nothing redacted: no hint at all.
        let clear = CredentialHints(recorded: [], redacted: false, live: LiveCredentials(), profile: .mobileMessaging)
        #expect(clear.annotate(outcome(401)).differences.first?.note == nil)
        #expect(clear.summary == nil)
    }
}

/// A transport that answers with `answer`.
private struct EchoTransport: Transport {
    let answer: @Sendable (HTTPRequest) -> HTTPResponse
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { answer(request) }
}
