import ConformCore
import ConformReplay
import ConformTraffic

/// `replay --credential ROLE=VALUE` and `CONFORM_CREDENTIAL_<ROLE>`: live values for a redacted recording's
/// credentials, sent in place of their pseudonyms and never written anywhere.
extension ReplayCommand {
    /// The recording opened, the credentials its metadata names (a recording's `meta.json`, a HAR's
    /// `log._conformCredentials`), whether it says it was redacted, the origins of the upstreams it was recorded
    /// from (``RecordingMeta/upstreams``), and what the replay sends for its credentials (``ReplayCredentials``);
    /// `nil` (after reporting why) when the recording or its metadata cannot be read.
    static func credentials(
        _ recording: String, parsed: Arguments, io: CommandIO
    ) throws(UsageError) -> (
        trace: Trace, recorded: [RedactedCredential], redacted: Bool, given: ReplayCredentials,
        origins: [String: String]
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
        do {
            let resolved = try ReplayCredentials.resolve(
                given: given, environment: io.environment, recorded: recorded, profile: ConformCommand.profile)
            return (trace, recorded, redacted, resolved, origins)
        } catch {
            throw UsageError(message: error.message, subcommand: "replay")
        }
    }
}
