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
