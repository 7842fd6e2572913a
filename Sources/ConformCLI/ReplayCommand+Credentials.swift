import ConformCore
import ConformTraffic

/// `replay --credential ROLE=VALUE` and `CONFORM_CREDENTIAL_<ROLE>`: live values for a redacted recording's
/// credentials, sent in place of their pseudonyms and never written anywhere.
extension ReplayCommand {
    /// The recording opened, the credentials its metadata names (a recording's `meta.json`, a HAR's
    /// `log._conformCredentials`), whether it says it was redacted, and the live values given for them; `nil`
    /// (after reporting why) when the recording or its metadata cannot be read.
    static func credentials(
        _ recording: String, parsed: Arguments, io: CommandIO
    ) throws(UsageError) -> (trace: Trace, recorded: [RedactedCredential], redacted: Bool, live: LiveCredentials)? {
        let trace: Trace
        let recorded: [RedactedCredential]
        let redacted: Bool
        do {
            trace = try TrafficSupport.trace(recording, io: io)
            recorded = try trace.redactedCredentials()
            redacted = try RecordingMeta.find(forTrace: io.resolve(recording))?.redacted ?? !recorded.isEmpty
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
            let live = try LiveCredentials.resolve(
                given: given, environment: io.environment, recorded: recorded, profile: ConformCommand.profile)
            return (trace, recorded, redacted, live)
        } catch {
            throw UsageError(message: error.message, subcommand: "replay")
        }
    }
}
