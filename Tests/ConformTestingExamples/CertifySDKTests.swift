import ConformCore
import ConformTesting
import Foundation
import Testing

/// What a vendor writes in their own test target: their SDK's networking layer, certified by the bundled suites.
@Suite struct CertifySDKTests {
    /// The SDK's transport against `conform serve`: every bundled suite must pass.
    @Test func theSDKTransportConformsAgainstConformServe() async throws {
        let server = try await ServedReference()
        defer { server.stop() }
        let result = await Certification.run(.transport(URLSessionTransport(), baseURL: server.baseURL))
        #expect(result.conforms, "\(result.summary)")
        #expect(result.run?.suites.count == CertificationSuites.bundledNames.count)
        #expect(result.summary.hasSuffix("Result: CONFORMS\n"))
    }

    /// A client that never sends `forceDepersonalize=true` does not conform, and the message names the step.
    ///
    /// `#expect(result.conforms, "\(result.summary)")` fails with this message (ids vary from run to run):
    ///
    ///     Expectation failed: (result → does not conform).conforms → false
    ///     ↳ Conform: 1 suite, 14 steps against http://127.0.0.1:PORT
    ///
    ///       ✘ login  Login personalizes: from anonymous, idempotently, refused for another user without force, …
    ///           ✘ phone › 8. the other user logs in with forceDepersonalize=true
    ///               --> suites/02-login.yaml:98:7  spec: flow step 2; API M4 [D4]
    ///               POST http://127.0.0.1:PORT/mobile/1/appinstance/ID/personalize?forceDepersonalize=true&… -> 400
    ///               must status
    ///                   expected: 200
    ///                   actual:   400
    ///           …
    ///       Result: DOES NOT CONFORM
    ///
    /// The request line is the one the suite asked for; the broken transport changed it on the way out.
    @Test func aClientThatDropsForceDepersonalizeDoesNotConform() async throws {
        let server = try await ServedReference()
        defer { server.stop() }
        let broken = DroppingForceDepersonalize(wrapping: URLSessionTransport())
        let result = await Certification.run(
            .transport(broken, baseURL: server.baseURL), suites: .bundled(["02-login"]))
        #expect(result.outcome == .doesNotConform, "\(result.summary)")
        #expect(result.summary.contains("✘ phone › 8. the other user logs in with forceDepersonalize=true\n"))
        #expect(result.summary.contains("--> suites/02-login.yaml:98:7"))
        #expect(result.summary.contains("must status\n            expected: 200\n            actual:   400\n"))
        #expect(result.summary.hasSuffix("Result: DOES NOT CONFORM\n"))
    }
}

/// A deliberately broken SDK: it drops `forceDepersonalize=true` from every request, so a device that another user
/// had personalized is never moved to the new user.
struct DroppingForceDepersonalize: Transport {
    let inner: any Transport

    init(wrapping inner: any Transport) { self.inner = inner }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        for pattern in ["forceDepersonalize=true&", "&forceDepersonalize=true", "?forceDepersonalize=true"] {
            request.url = request.url.replacingOccurrences(of: pattern, with: pattern.hasPrefix("?") ? "?" : "")
        }
        return try await inner.send(request)
    }
}
