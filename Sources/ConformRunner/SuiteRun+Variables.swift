import ConformCore
import ConformDiagnostics

/// What a run's variables say before it starts: a name given that no suite uses, and the credentials that would go
/// out with the profile's public defaults.
extension SuiteRun {
    /// A `--var` for a name no suite among `suites` declares or uses would be silently ignored (a misspelt
    /// `--var apikey=…` and the public default credentials used instead): `refused` says so, with the closest name,
    /// or the bundled suite that uses it (`bundledUsers`, asked only then). A name only unselected suites use is
    /// fine, so one environment can serve every selection. The environment's `CONFORM_VAR_*` serve a whole plan (a
    /// CI exports them all and runs one suite per job): one no suite given uses is a note, never a refusal.
    public static func unusedVariables(
        overrides: [String: String], environment: [String: String], suites: [Suite], profile: ProtocolProfile,
        bundledUsers: () -> [String: String]
    ) -> (refused: String?, notes: [String]) {
        var known = Set(profile.baseNames)
        for suite in suites { known.formUnion(suite.names) }
        lazy var bundled = bundledUsers()
        func closest(_ name: String) -> String {
            closestMatch(to: name, in: known.sorted()).map { "; did you mean '\($0)'?" } ?? ""
        }
        for name in overrides.keys.sorted() where !known.contains(name) {
            let hint = bundled[name].map { "; the bundled suite \($0) uses it: pass that suite too" } ?? closest(name)
            return ("--var \(name)=… sets '\(name)', which no suite given declares or uses\(hint)", [])
        }
        var notes: [String] = []
        for name in environment.keys.sorted() where !known.contains(name) && overrides[name] == nil {
            let hint = bundled[name].map { " (the bundled suite \($0) uses it)" } ?? closest(name)
            notes.append("note: CONFORM_VAR_\(name) sets '\(name)', which no suite given uses\(hint); ignored")
        }
        return (nil, notes)
    }

    /// The credentials `suites` send that `given` has no value for and whose default is one of the profile's public
    /// values (the reference's test codes): sent to a live implementation, they are refused, which reads as a
    /// failure of its own. A deliberately wrong default (a refusal test's) is not one of them.
    public static func publicDefaultCredentials(
        _ suites: [Suite], given: [String: String], profile: ProtocolProfile
    ) -> [String] {
        let credentials = Suite.credentialVariables(of: suites, profile: profile)
        let publicValues = Set(profile.redaction.publicValues)
        var publicDefaults: Set<String> = []
        for suite in suites {
            for variable in suite.variables {
                if case .string(let template) = variable.defaultValue, publicValues.contains(template.source) {
                    publicDefaults.insert(variable.name)
                }
            }
        }
        return credentials.sorted().filter { given[$0] == nil && publicDefaults.contains($0) }
    }

    /// What the run tells the user at its start about each credential of ``publicDefaultCredentials(_:given:profile:)``
    /// going to `target`, and how to give it.
    public static func publicDefaultWarning(_ name: String, target: String) -> String {
        "warning: no value given for '\(name)', a credential the suites send: their default (the reference's public "
            + "one) goes to \(target); give it with CONFORM_VAR_\(name) or --var \(name)=…"
    }
}

extension SuiteFiles {
    /// The variables of the suites in the default directory, each with the file of the first suite that uses it:
    /// for the hint of a variable no suite given uses. Empty when the suites are not found or do not load.
    public static func variableUsers(profile: ProtocolProfile, resolve: (String) -> String) -> [String: String] {
        guard let files = try? expand([defaultDirectory(resolve: resolve)], resolve: resolve) else { return [:] }
        var users: [String: String] = [:]
        for suite in load(files, profile: profile, resolve: resolve).suites {
            for name in suite.names where users[name] == nil { users[name] = suite.file }
        }
        return users
    }
}
