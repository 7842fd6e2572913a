import ConformCore
import ConformMobileMessaging
import ConformReplay
import ConformTraffic
import Testing

/// The key that re-signs redacted tokens is given like a credential, from the command line or the environment, and
/// is never taken for a credential role; what is missing or malformed is said by name, never by value.
@Suite struct ReplayCredentialsTests {
    func resolve(_ given: [(key: String, value: String)], _ environment: [String: String] = [:])
        throws(LiveCredentials.Problem) -> ReplayCredentials
    {
        try ReplayCredentials.resolve(
            given: given, environment: environment, recorded: [], profile: .mobileMessaging)
    }

    @Test func theSigningKeyIsNotACredentialAndTheCommandLineWins() throws {
        let credentials = try resolve(
            [("jwtSecret", "00ff10"), ("JWTKEYID", "kid-1")], ["CONFORM_CREDENTIAL_JWTSECRET": "abcdef"])
        #expect(credentials.signer?.secret == [0x00, 0xFF, 0x10])
        #expect(credentials.signer?.keyID == "kid-1")
        #expect(credentials.live.values.isEmpty)
        let fromEnvironment = try resolve([], ["CONFORM_CREDENTIAL_JWTSECRET": "abcdef"])
        #expect(fromEnvironment.signer?.secret == [0xAB, 0xCD, 0xEF])
        #expect(try resolve([]).signer == nil)
    }

    @Test func aMalformedOrMissingKeyIsRefusedByName() {
        #expect(throws: LiveCredentials.Problem.self) { try resolve([("jwtSecret", "not-hex-secret")]) }
        do {
            _ = try resolve([("jwtSecret", "zz")])
            Issue.record("a key that is not hex was accepted")
        } catch {
            #expect(error.message.hasPrefix("--credential jwtSecret=… takes the application's JWT secret key in hex"))
            #expect(!error.message.contains("zz"))
        }
        do {
            _ = try resolve([("jwtKeyId", "kid-1")])
            Issue.record("a key id without its key was accepted")
        } catch {
            #expect(
                error.message == "--credential jwtKeyId=… names the key of --credential jwtSecret=…, which is missing")
        }
    }
}
