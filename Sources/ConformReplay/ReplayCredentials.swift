import ConformCore
import ConformCrypto
import ConformTraffic

/// What a replay sends in place of a redacted recording's credentials: the live values by role or pseudonym
/// (``LiveCredentials``), and the key that re-signs its redacted tokens (`jwtSecret`, in hex, with `jwtKeyId`), given
/// as `ROLE=VALUE` pairs or `CONFORM_CREDENTIAL_<ROLE>` variables, the pairs winning. None of it is written anywhere.
public struct ReplayCredentials: Sendable {
    /// The key and key id that re-sign redacted tokens: given like credentials, but no recording holds a pseudonym
    /// of them.
    public static let tokenKeyNames = ["jwtSecret", "jwtKeyId"]

    public var live: LiveCredentials
    /// The key that re-signs redacted tokens, with its key id; `nil` when none was given.
    public var signer: (secret: [UInt8], keyID: String?)?

    /// The credentials of `given` and `environment` for what `recorded` names.
    public static func resolve(
        given: [(key: String, value: String)], environment: [String: String], recorded: [RedactedCredential],
        profile: ProtocolProfile
    ) throws(LiveCredentials.Problem) -> ReplayCredentials {
        func isTokenKey(_ name: String) -> Bool { tokenKeyNames.contains { $0.lowercased() == name.lowercased() } }
        let signing = tokenKeyNames.map { name in given.last { $0.key.lowercased() == name.lowercased() }?.value }
        var others = environment
        for name in tokenKeyNames { others[LiveCredentials.environmentPrefix + name.uppercased()] = nil }
        let live = try LiveCredentials.resolve(
            given: given.filter { !isTokenKey($0.key) }, environment: others, recorded: recorded, profile: profile)
        let secretText = signing[0] ?? environment[LiveCredentials.environmentPrefix + "JWTSECRET"]
        let keyID = signing[1] ?? environment[LiveCredentials.environmentPrefix + "JWTKEYID"]
        guard let secretText else {
            if keyID != nil {
                throw LiveCredentials.Problem(
                    message: "--credential jwtKeyId=… names the key of --credential jwtSecret=…, which is missing")
            }
            return ReplayCredentials(live: live, signer: nil)
        }
        guard let secret = Hex.decode(secretText), !secret.isEmpty else {
            throw LiveCredentials.Problem(
                message: "--credential jwtSecret=… takes the application's JWT secret key in hex "
                    + "(as the reference's jwtKeys and the suites' jwtSecret write it)")
        }
        return ReplayCredentials(live: live, signer: (secret, keyID))
    }

    /// `wire` with the credentials put in below everything that reports (outcomes keep the recording's
    /// pseudonyms): redacted tokens re-signed when a key was given, live values swapped in.
    public func transport(over wire: any Transport) -> any Transport {
        let signed: any Transport =
            signer.map {
                RedactedTokenSigner(inner: wire, secret: $0.secret, keyID: $0.keyID, credentials: live)
            } ?? wire
        return CredentialTransport(inner: signed, credentials: live)
    }
}
