import ConformCore
import ConformReport

/// The credentials of a run, learned from where its plan sends them: the variables its suites put into a
/// credential place (``Suite/credentialVariables(profile:)``) or named like one, and the values the run was given
/// for them. Reports mask them, a bundle leaves them out of `bundle.json` and its log's redactor knows them before
/// the first exchange.
public struct RunCredentials: Sendable, Hashable {
    /// The names of the variables that are credentials.
    public var names: Set<String>
    /// The values given for them (the target's bases, the environment's, `--var`), but the profile's public ones.
    public var values: [String]
    /// The profile's public values (the reference's documented test credentials), shown as they are.
    public var publicValues: Set<String>

    /// The credentials of a run of `plan` with `variables` given, for `profile`.
    public init(plan: [Suite], variables: [String: String], profile: ProtocolProfile) {
        self.init(names: Suite.credentialVariables(of: plan, profile: profile), variables: variables, profile: profile)
    }

    /// The credentials of a run whose plan sends the credential variables `names`, with `variables` given.
    init(names: Set<String>, variables: [String: String], profile: ProtocolProfile) {
        publicValues = Set(profile.redaction.publicValues)
        self.names = names
        values = RunProvenance.credentialValues(variables, credentials: names, keep: publicValues)
    }

    /// Whether the variable `name` given `value` is a credential to hide.
    public func hides(_ name: String, value: String) -> Bool {
        !publicValues.contains(value) && RunProvenance.isCredential(name, names)
    }
}
