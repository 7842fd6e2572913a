import ConformCore
import ConformCrypto
import ConformMobileMessaging
import Foundation
import Synchronization
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// A Bearer JWT the recorder redacted: re-signed with the key the user gives (claims as recorded, times re-dated,
/// pseudonyms of given credentials replaced below every report), or not judged, said once, without it.
@Suite struct RedactedTokenReplayTests {
    static let secret = Array("the-application-secret".utf8)

    /// Answers 200 to a token signed with ``secret`` under `kid` `k1` that has not expired, 401 otherwise; keeps
    /// the claims it was sent.
    final class Verifier: HTTPHandler, Sendable {
        let seen = Mutex<[JSONValue]>([])
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            guard let token = RedactedToken.bearer(request),
                case .success(let decoded) = JWT.verifyHS256(token: token, secret: RedactedTokenReplayTests.secret),
                (try? JSONValue.parse(decoded.header))?["kid"] == "k1",
                let claims = try? JSONValue.parse(decoded.claims)
            else { return .json(401, ["error": "refused"]) }
            seen.withLock { $0.append(claims) }
            let expired = (claims["exp"]?.numberValue ?? 0) <= Date().timeIntervalSince1970
            return expired ? .json(401, ["error": "expired"]) : .json(200, ["sub": claims["sub"] ?? .null])
        }
    }

    /// One recording's redactor: the same secret, the same pseudonym.
    let redactor = Redactor(policy: RedactionPolicy(profile: .mobileMessaging))

    /// A recorded exchange carrying `token` (redacted as the recorder redacts), answered `status` and `body`.
    func exchange(_ seq: Int, token: String, at: Date, status: Int, body: JSONValue) -> RecordedExchange {
        let request = HTTPRequest(
            method: .get, url: "/mobile/1/appinstance/r1/user",
            headerFields: ["Authorization": "Bearer \(token)"])
        let recorded = RecordedExchange(
            seq: seq, flow: "r1", upstream: "mobile", startedAt: at, durationMs: 1, request: request,
            response: .json(HTTPStatus(status), body))
        return redactor.redact(recorded)
    }

    func token(sub: String, app: String, iat: Int, exp: Int, kid: String = "k1") -> String {
        let claims: JSONValue = [
            "sub": .string(sub), "infobip-api-key": .string(app), "iat": .int(iat), "exp": .int(exp),
        ]
        return JWT.signHS256(claims: claims.serialized(), keyID: kid, secret: Self.secret)
    }

    @Test func theRecorderKeepsTheKeyIDAndTheClaimsButNotTheSignature() throws {
        let recorded = exchange(
            1, token: token(sub: "cust-ana", app: "live-app-code-1", iat: 1000, exp: 4600), at: Date(),
            status: 200, body: ["sub": "cust-ana"])
        let redacted = try #require(RedactedToken(recorded.request))
        #expect(redacted.recordedKeyID == "k1")
        #expect(redacted.claims["sub"] == "cust-ana")
        #expect(redacted.claims["exp"] == 4600)
        let app = try #require(redacted.claims["infobip-api-key"]?.stringValue)
        #expect(app.hasPrefix("redacted-"), "the application code is a pseudonym: \(app)")
        #expect(RedactedToken(token: token(sub: "x", app: "y", iat: 0, exp: 1)) == nil, "a live token is not one")
    }

    @Test func withTheKeyATokenIsResignedAndRedatedBelowTheReports() async throws {
        // Recorded an hour ago with 10 minutes left: replayed now, it has 10 minutes left again.
        let recordedAt = Date().addingTimeInterval(-3600)
        let iat = Int(recordedAt.timeIntervalSince1970) - 60
        let live = exchange(
            1, token: token(sub: "cust-ana", app: "live-app-code-1", iat: iat, exp: iat + 660), at: recordedAt,
            status: 200, body: ["sub": "cust-ana"])
        // Recorded expired two minutes before it was sent: replayed, it is expired still, and refused alike.
        let expired = exchange(
            2, token: token(sub: "cust-ana", app: "live-app-code-1", iat: iat - 600, exp: iat - 60),
            at: recordedAt, status: 401, body: ["error": "expired"])
        // Refused for a reason its claims do not show (its signature): not sent, not judged.
        let refused = exchange(
            3, token: token(sub: "cust-ana", app: "live-app-code-1", iat: iat, exp: iat + 660), at: recordedAt,
            status: 401, body: ["error": "refused"])
        let pseudonym = try #require(RedactedToken(live.request)?.claims["infobip-api-key"]?.stringValue)
        let verifier = Verifier()
        let credentials = LiveCredentials(values: [pseudonym: "live-app-code-1"], roles: ["appCode"])
        var options = ReplayOptions()
        options.signsRedactedTokens = true
        let replayer = Replayer(
            transport: RedactedTokenSigner(
                inner: InProcessTransport(verifier), secret: Self.secret, keyID: nil, credentials: credentials),
            options: options)
        let summary = try await replayer.replay([live, expired, refused])
        #expect(summary.passed == 2 && summary.mismatched == 0, "\(summary.mismatches)")
        #expect(summary.unjudged == 1 && summary.refusedTokens == 1 && summary.redactedTokens == 0)
        #expect(summary.mismatches.first?.seq == 3)
        let sent = verifier.seen.withLock { $0 }
        #expect(sent.count == 2, "the refused one is never sent")
        let first = try #require(sent.first)
        #expect(first["infobip-api-key"] == "live-app-code-1", "the live value, in the token only")
        let lifetime = (first["exp"]?.numberValue ?? 0) - Date().timeIntervalSince1970
        #expect(lifetime > 500 && lifetime <= 601, "\(lifetime)")
        #expect(first["exp"]?.numberValue.map { $0 - (first["iat"]?.numberValue ?? 0) } == 660)
        // What the outcome shows is the redacted token, with the pseudonym: no live value, no signature.
        let shown = try #require(summary.mismatches.first?.request)
        #expect(RedactedToken(shown)?.claims["infobip-api-key"]?.stringValue == pseudonym)
    }

    @Test func withoutTheKeyTheExchangesThatCarryATokenAreNotJudgedAndNotSent() async throws {
        let now = Date()
        let exchanges = (1...3).map {
            exchange(
                $0, token: token(sub: "u\($0)", app: "live-app-code-1", iat: 0, exp: 9_999_999_999), at: now,
                status: 200, body: ["sub": .string("u\($0)")])
        }
        let verifier = Verifier()
        let summary = try await Replayer(transport: InProcessTransport(verifier)).replay(exchanges)
        #expect(summary.unjudged == 3 && summary.redactedTokens == 3 && summary.mismatched == 0)
        #expect(
            summary.mismatches.map(\.cannotJudge) == Array(repeating: "its request carries a redacted token", count: 3))
        #expect(verifier.seen.withLock { $0.isEmpty })
    }

    @Test func theUpstreamsOriginsAreStoredInTheMetadataAndOldRecordingsStillLoad() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("meta-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writer = try RecordingWriter(
            directory: directory, upstreams: ["mobile": "http://127.0.0.1:18080", "backend": "https://api.example"])
        writer.close()
        let meta = try RecordingMeta.load(directory: directory)
        #expect(meta.upstreams == ["mobile": "http://127.0.0.1:18080", "backend": "https://api.example"])
        #expect(meta.upstreamOrigin("mobile") == "http://127.0.0.1:18080")
        let text = try String(contentsOfFile: directory + "/meta.json", encoding: .utf8)
        #expect(text.contains(#""upstreams": {"#), "\(text)")

        // Written before origins were stored: no member, no origin, still read.
        let old = #"{"format":"conform-recording","version":1,"createdAt":"2026-01-05T09:14:02.311Z"}"#
        try Data(old.utf8).write(to: URL(fileURLWithPath: directory + "/meta.json"))
        #expect(try RecordingMeta.load(directory: directory).upstreams.isEmpty)

        // Anything but an origin is refused with the member named.
        let bad = #"{"version":1,"upstreams":{"mobile":"http://a.example/path"}}"#
        try Data(bad.utf8).write(to: URL(fileURLWithPath: directory + "/meta.json"))
        #expect {
            try RecordingMeta.load(directory: directory)
        } throws: { error in
            "\(error)".contains(
                #"$.upstreams.mobile: expected an origin (http(s)://HOST[:PORT]), got "http://a.example/path""#)
        }
    }

    /// Answers M12 with the origin the request came to.
    struct NamesItsOrigin: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            .json(200, ["baseUrl": .string(URLParts(request.url).origin)])
        }
    }

    @Test func aReplayReadsTheRecordedUpstreamsOriginAsTheTargets() async throws {
        // Recorded through a proxy on :8000 in front of an upstream on :9000 that names itself.
        let recorded = RecordedExchange(
            seq: 1, flow: "f", upstream: "mobile", startedAt: Date(), durationMs: 1,
            request: HTTPRequest(method: .get, url: "/mobile/1/baseurl", headerFields: ["Host": "127.0.0.1:8000"]),
            response: .json(200, ["baseUrl": "http://127.0.0.1:9000"]))
        let target = InProcessTransport(NamesItsOrigin())
        var options = ReplayOptions(origins: ["*": "http://127.0.0.1:7000"])
        let before = try await Replayer(transport: target, options: options).replay([recorded])
        #expect(before.mismatched == 1)
        #expect(before.mismatches.first?.differences.map(\.path) == ["$.baseUrl"])
        options.upstreamOrigins = ["*": "http://127.0.0.1:9000"]
        let after = try await Replayer(transport: target, options: options).replay([recorded])
        #expect(after.passed == 1, "\(after.mismatches)")
    }
}
