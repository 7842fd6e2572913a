import ConformCore
import ConformTraffic
import Synchronization

/// Says, where a replay of a redacted recording is refused (401), which credential role is redacted and how to map
/// it: on each refused exchange's status difference, and in one summary line when most exchanges were refused.
public final class CredentialHints: Sendable {
    let recorded: [RedactedCredential]
    /// Whether the recording says it was redacted (one written before roles were named lists none).
    let redacted: Bool
    let live: LiveCredentials
    let roles: [ProtocolProfile.CredentialRole]
    private let counts = Mutex((answered: 0, refused: 0))

    public init(recorded: [RedactedCredential], redacted: Bool, live: LiveCredentials, profile: ProtocolProfile) {
        self.recorded = recorded
        self.redacted = redacted
        self.live = live
        self.roles = profile.redaction.credentialRoles
    }

    /// What to do about the refusals: map the redacted roles not mapped yet, or check the live values given.
    public var advice: String? {
        let unmapped = live.unmapped(recorded)
        if !unmapped.isEmpty {
            let each = unmapped.map { credential in
                let title = roles.first { $0.name == credential.role }?.title ?? credential.role
                return "the \(title) is redacted as \(credential.pseudonym) (--credential \(credential.role)=VALUE "
                    + "or \(LiveCredentials.environmentPrefix)\(credential.role.uppercased()))"
            }
            return "the recording's credentials are pseudonyms: " + each.joined(separator: "; ")
        }
        if !live.values.isEmpty {
            let given = live.roles.isEmpty ? "values" : live.roles.joined(separator: ", ")
            return "the target refused the live \(given) given with --credential"
        }
        if redacted, recorded.isEmpty {
            return "the recording was redacted and its metadata names no credential roles: map each pseudonym "
                + "(redacted-…) it sends to its live value with --credential PSEUDONYM=VALUE"
        }
        return nil
    }

    /// `outcome`, counted, with the advice on its status difference when the target answered 401 and the recording
    /// did not.
    public func annotate(_ outcome: ReplayOutcome) -> ReplayOutcome {
        guard let actual = outcome.actual else { return outcome }
        let refused = actual.status.code == 401 && outcome.expected.status.code != 401
        counts.withLock { counts in
            counts.answered += 1
            if refused { counts.refused += 1 }
        }
        guard refused, let advice else { return outcome }
        var out = outcome
        if let i = out.differences.firstIndex(where: { $0.path == "status" }), out.differences[i].note == nil {
            out.differences[i].note = advice
        }
        return out
    }

    /// One line for the summary when most exchanges answered were refused with 401, or `nil`.
    public var summary: String? {
        let (answered, refused) = counts.withLock { ($0.answered, $0.refused) }
        guard answered > 0, refused * 2 > answered, let advice else { return nil }
        return "\(refused) of \(answered) exchanges answered 401: \(advice)"
    }
}
