import ConformCore
import ConformReplay

extension ReplayCommand {
    /// `--fresh-identities[=PREFIX]`: the persons of this run, named by the protocol profile's identity fields under
    /// PREFIX or a fresh prefix; `nil` without the option. `diff` takes it with the same meaning.
    static func freshIdentities(
        _ parsed: Arguments, subcommand: String = "replay"
    ) throws(UsageError) -> FreshIdentities? {
        guard parsed.has("--fresh-identities") else { return nil }
        let prefix = parsed.value("--fresh-identities") ?? FreshIdentities.randomPrefix()
        guard let fresh = FreshIdentities(prefix: prefix, keys: ConformCommand.profile.replay) else {
            throw UsageError(
                message:
                    "--fresh-identities takes a PREFIX of 1 to 32 letters, digits or '-', got \(HTTPSyntax.quoted(prefix))",
                subcommand: subcommand)
        }
        return fresh
    }
}
