import ConformDiagnostics

/// The ids of the diagnostics this module emits: suites, as the loader reads them and the origin check refuses them.
extension DiagnosticID {
    /// A suite breaks a rule of the suite format (names, flows, steps, matchers).
    public static let suiteInvalid = DiagnosticID("suite.invalid")
    /// A template (`{{ … }}`) does not parse.
    public static let suiteTemplate = DiagnosticID("suite.template")
    /// A template uses a name no step declares.
    public static let suiteUndeclaredName = DiagnosticID("suite.undeclared-name")
    /// A request URL names a host outside the target's origins (the user has not allowed it with `--allow-host`).
    public static let suiteOutsideTarget = DiagnosticID("suite.outside-target")
    /// A wait is for an event no step of the suite (or of the flow it names) emits.
    public static let suiteUnknownEvent = DiagnosticID("suite.unknown-event")

    /// Every id above, for the catalog the tests gather from every module.
    public static let suiteIDs: [DiagnosticID] = [
        .suiteInvalid, .suiteTemplate, .suiteUndeclaredName, .suiteOutsideTarget, .suiteUnknownEvent,
    ]
}

/// The words of the loader's problems with names, functions and modes, written once.
extension DiagnosticMessage {
    /// A template name no step declares and the profile does not predefine.
    public static func undeclaredName(_ name: String, known: [String]) -> DiagnosticMessage {
        let suggestion = closestMatch(to: name, in: known).map { "did you mean '\($0)'? " } ?? ""
        return DiagnosticMessage(
            .suiteUndeclaredName, "'\(name)' is not defined",
            help:
                "\(suggestion)declare it under 'vars:' (an empty default is fine for values given with --var) or capture it in an earlier step"
        )
    }

    /// A call of a function that is neither built in nor the profile's.
    public static func unknownFunction(_ name: String, functions: [String]) -> DiagnosticMessage {
        let suggestion = closestMatch(to: name, in: functions).map { "did you mean '\($0)'? " } ?? ""
        return DiagnosticMessage(
            .suiteUndeclaredName, "'\(name)' is not a function",
            help: "\(suggestion)the functions are: \(functions.sorted().joined(separator: ", "))")
    }

    /// A `profile:` that names none of the profile's application modes.
    public static func unknownApplicationMode(_ mode: String, modes: [String]) -> DiagnosticMessage {
        let suggestion = closestMatch(to: mode, in: modes).map { "did you mean '\($0)'? " } ?? ""
        return DiagnosticMessage(
            .suiteInvalid, "unknown profile '\(mode)'",
            help: "\(suggestion)use one of: \(modes.joined(separator: ", "))")
    }
}
