import ConformCore
import ConformCrypto
import ConformReplay
import ConformTraffic

/// `replay --credential ROLE=VALUE` and `CONFORM_CREDENTIAL_<ROLE>`: live values for a redacted recording's
/// credentials, sent in place of their pseudonyms and never written anywhere.
extension ReplayCommand {
    /// `--credential jwtSecret=HEX` and `jwtKeyId=KID`: the key and key id that re-sign redacted tokens.
    static let tokenKeyNames = ["jwtSecret", "jwtKeyId"]

    /// The recording opened, the credentials its metadata names (a recording's `meta.json`, a HAR's
    /// `log._conformCredentials`), whether it says it was redacted, the live values given for them, and the origins
    /// of the upstreams it was recorded from (``RecordingMeta/upstreams``), and the key that re-signs its redacted
    /// tokens (`--credential jwtSecret=HEX`, `jwtKeyId=KID`, or `CONFORM_CREDENTIAL_JWTSECRET`, `…_JWTKEYID`);
    /// `nil` (after reporting why) when the recording or its metadata cannot be read.
    static func credentials(
        _ recording: String, parsed: Arguments, io: CommandIO
    ) throws(UsageError) -> (
        trace: Trace, recorded: [RedactedCredential], redacted: Bool, live: LiveCredentials,
        origins: [String: String], signer: (secret: [UInt8], keyID: String?)?
    )? {
        let trace: Trace
        let recorded: [RedactedCredential]
        let redacted: Bool
        let origins: [String: String]
        do {
            trace = try TrafficSupport.trace(recording, io: io)
            recorded = try trace.redactedCredentials()
            let meta = try RecordingMeta.find(forTrace: io.resolve(recording))
            redacted = meta?.redacted ?? !recorded.isEmpty
            origins = meta?.upstreams ?? [:]
        } catch {
            io.report(failure: error)
            return nil
        }
        var given: [(key: String, value: String)] = []
        for item in parsed.values("--credential") {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
                // The value is a secret: the message names the option, never what was given.
                throw UsageError(message: "--credential takes ROLE=VALUE (e.g. appCode=…)", subcommand: "replay")
            }
            given.append((String(item[..<eq]), String(item[item.index(after: eq)...])))
        }
        // The key that signs the application's tokens is not a credential a recording holds a pseudonym of.
        let signing = tokenKeyNames.map { name in given.last { $0.key.lowercased() == name.lowercased() }?.value }
        given.removeAll { key in tokenKeyNames.contains { $0.lowercased() == key.key.lowercased() } }
        var environment = io.environment
        for name in tokenKeyNames {
            let variable = LiveCredentials.environmentPrefix + name.uppercased()
            environment[variable] = nil
        }
        let live: LiveCredentials
        do {
            live = try LiveCredentials.resolve(
                given: given, environment: environment, recorded: recorded, profile: ConformCommand.profile)
        } catch {
            throw UsageError(message: error.message, subcommand: "replay")
        }
        let secretText = signing[0] ?? io.environment[LiveCredentials.environmentPrefix + "JWTSECRET"]
        let keyID = signing[1] ?? io.environment[LiveCredentials.environmentPrefix + "JWTKEYID"]
        var signer: (secret: [UInt8], keyID: String?)?
        if let secretText {
            guard let secret = Hex.decode(secretText), !secret.isEmpty else {
                throw UsageError(
                    message: "--credential jwtSecret=… takes the application's JWT secret key in hex "
                        + "(as the reference's jwtKeys and the suites' jwtSecret write it)",
                    subcommand: "replay")
            }
            signer = (secret, keyID)
        } else if keyID != nil {
            throw UsageError(
                message: "--credential jwtKeyId=… names the key of --credential jwtSecret=…, which is missing",
                subcommand: "replay")
        }
        return (trace, recorded, redacted, live, origins, signer)
    }
}
