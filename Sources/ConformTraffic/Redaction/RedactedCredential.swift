import ConformCore

/// A credential a recording's redaction replaced: its role (the profile's, e.g. `appCode`) and its pseudonym,
/// never the clear value. A recording's metadata lists them (`meta.json`, a HAR's `log._conformCredentials`).
public struct RedactedCredential: Sendable, Hashable, CustomStringConvertible {
    /// The profile's role (``ProtocolProfile/CredentialRole/name``).
    public var role: String
    /// What stands for the value in the recording.
    public var pseudonym: String

    public init(role: String, pseudonym: String) {
        self.role = role
        self.pseudonym = pseudonym
    }

    public var description: String { "\(role) \(pseudonym)" }

    /// As written in metadata: `{"role": …, "pseudonym": …}`.
    public var json: JSONValue { ["role": .string(role), "pseudonym": .string(pseudonym)] }

    /// The most read from one metadata file; a redaction names a handful.
    public static let maxListed = 10_000

    /// The credentials of a metadata list; members that are not a role and a pseudonym are skipped, so an older or
    /// hand-edited file still reads.
    public static func list(_ value: JSONValue?) -> [RedactedCredential] {
        guard let items = value?.arrayValue else { return [] }
        var out: [RedactedCredential] = []
        for item in items.prefix(maxListed) {
            guard let role = item["role"]?.stringValue, let pseudonym = item["pseudonym"]?.stringValue,
                !role.isEmpty, !pseudonym.isEmpty, !out.contains(RedactedCredential(role: role, pseudonym: pseudonym))
            else { continue }
            out.append(RedactedCredential(role: role, pseudonym: pseudonym))
        }
        return out
    }
}

extension [RedactedCredential] {
    /// The pseudonyms of `role`, in the order they were first met.
    public func pseudonyms(of role: String) -> [String] { filter { $0.role == role }.map(\.pseudonym) }

    /// `self` with those of `more` it lacks added after it.
    public func merging(_ more: [RedactedCredential]) -> [RedactedCredential] {
        var out = self
        for credential in more where !out.contains(credential) { out.append(credential) }
        return out
    }
}
