import ConformRunner
import Foundation

/// Options that may carry secrets, also read from the environment, so that a long-running proxy or mock does not
/// show them to every user of the machine in `ps` for as long as it runs. The command line wins over the
/// environment for the same name.
extension Arguments {
    /// The environment variables that give `--map` pairs: `CONFORM_MAP_<ANY>=OLD=NEW`, one pair each.
    static let mapPrefix = "CONFORM_MAP_"
    /// The environment variable of each application-code option, holding codes separated by commas.
    static let codeVariables = [
        "--restricted": "CONFORM_RESTRICTED", "--restricted-access": "CONFORM_RESTRICTED_ACCESS",
        "--jwt": "CONFORM_JWT",
    ]

    /// Suite variables: the environment's `CONFORM_VAR_NAME=VALUE`, then `--var NAME=VALUE` over them.
    func variables() throws(UsageError) -> [String: String] {
        RunPlan.variables(fromEnvironment: environment).merging(try pairs("--var")) { _, new in new }
    }

    /// Value substitutions: the environment's `CONFORM_MAP_<ANY>=OLD=NEW` (in name order), then `--map OLD=NEW` over
    /// them; a variable that holds no `OLD=NEW` is a usage error naming it.
    func substitutions() throws(UsageError) -> [String: String] {
        var out: [String: String] = [:]
        for (key, pair) in environment.sorted(by: { $0.key < $1.key }) where key.hasPrefix(Self.mapPrefix) {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                throw UsageError(
                    message: "the environment's \(key) takes OLD=NEW, as --map does; it holds no '='",
                    subcommand: subcommand)
            }
            out[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        return out.merging(try pairs("--map")) { _, new in new }
    }

    /// The application codes of `option` (`--restricted`, `--restricted-access`, `--jwt`): those of the command
    /// line, then those of its environment variable (``codeVariables``), each once.
    func codes(_ option: String) -> [String] {
        let listed = Self.codeVariables[option].flatMap { environment[$0] } ?? ""
        let fromEnvironment = listed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var seen: Set<String> = []
        return (values(option) + fromEnvironment).filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
