import ConformCore
import ConformDiagnostics
import ConformTraffic

/// Live values for the credentials a redacted recording holds as pseudonyms, by role (`replay --credential
/// appCode=LIVE`, `CONFORM_CREDENTIAL_APPCODE`): each pseudonym of the role is sent as the live value.
public struct LiveCredentials: Sendable, Hashable {
    /// Pseudonym → live value.
    public var values: [String: String]
    /// The roles mapped, in the order given.
    public var roles: [String]

    public init(values: [String: String] = [:], roles: [String] = []) {
        self.values = values
        self.roles = roles
    }

    /// The prefix of the environment variables that give live values (`CONFORM_CREDENTIAL_APPCODE`).
    public static let environmentPrefix = "CONFORM_CREDENTIAL_"
    /// The shortest live value: a shorter one would be found by chance in the answers it is taken out of again.
    public static let minimumLength = 6
    /// The longest live value.
    public static let maximumLength = 4096

    /// Why the values given cannot be used.
    public struct Problem: Error, Sendable, Hashable {
        public var message: String
    }

    /// The live values of `given` (`ROLE=VALUE` from the command line: a role of `profile`, or a pseudonym the
    /// recording names) and of `environment` (`CONFORM_CREDENTIAL_<ROLE>`, the role's name in any case, `_`
    /// ignored; the command line wins, and a role the recording did not redact is passed over, so one environment
    /// serves every recording) for the credentials `recorded` names.
    public static func resolve(
        given: [(key: String, value: String)], environment: [String: String], recorded: [RedactedCredential],
        profile: ProtocolProfile
    ) throws(Problem) -> LiveCredentials {
        let roles = profile.redaction.credentialRoles.map(\.name)
        func normalized(_ name: String) -> String { name.replacingOccurrences(of: "_", with: "").lowercased() }
        var out = LiveCredentials()
        func map(_ key: String, _ value: String, option: String, required: Bool) throws(Problem) {
            guard value.count >= minimumLength, value.utf8.count <= maximumLength,
                value.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F })
            else {
                throw Problem(
                    message: "\(option): the live value must be \(minimumLength) to \(maximumLength) characters "
                        + "without spaces or control characters")
            }
            // A pseudonym is mapped as it stands (a role with several, a recording whose metadata names none).
            if recorded.contains(where: { $0.pseudonym == key }) || Pseudonymizer.isPseudonym(key) {
                out.values[key] = value
                return
            }
            guard let role = roles.first(where: { normalized($0) == normalized(key) }) else {
                let suggestion = closestMatch(to: key, in: roles + recorded.map(\.pseudonym)).map {
                    "; did you mean '\($0)'?"
                }
                throw Problem(
                    message: "\(option): '\(key)' is not a credential role (\(roles.joined(separator: ", ")))"
                        + (suggestion ?? ""))
            }
            let pseudonyms = recorded.pseudonyms(of: role)
            guard !pseudonyms.isEmpty else {
                if !required { return }
                let named = recorded.isEmpty ? "none" : recorded.map(\.description).joined(separator: ", ")
                throw Problem(
                    message: "\(option): the recording's metadata names no redacted \(role) (it names \(named))")
            }
            guard pseudonyms.count == 1 else {
                throw Problem(
                    message: "\(option): the recording redacted \(pseudonyms.count) values of \(role) "
                        + "(\(pseudonyms.joined(separator: ", "))); map each by its pseudonym, "
                        + "--credential \(pseudonyms[0])=VALUE")
            }
            if out.values[pseudonyms[0]] == nil || required { out.values[pseudonyms[0]] = value }
            if !out.roles.contains(role) { out.roles.append(role) }
        }
        for (key, value) in given { try map(key, value, option: "--credential \(key)=…", required: true) }
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix(environmentPrefix) {
            let key = String(name.dropFirst(environmentPrefix.count))
            if given.contains(where: { normalized($0.key) == normalized(key) }) { continue }
            try map(key, value, option: name, required: false)
        }
        return out
    }

    /// The roles `recorded` names that no live value maps, each with its pseudonyms.
    public func unmapped(_ recorded: [RedactedCredential]) -> [RedactedCredential] {
        recorded.filter { values[$0.pseudonym] == nil }
    }
}
