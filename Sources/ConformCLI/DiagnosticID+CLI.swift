import ConformDiagnostics

/// The ids of the diagnostics this module emits: the command line.
extension DiagnosticID {
    /// The target to run against cannot be set up (an adapter that does not start, a bad URL).
    public static let runTargetUnavailable = DiagnosticID("run.target-unavailable")
    /// A command could not go on for a reason no other id names.
    public static let cliFailed = DiagnosticID("cli.failed")

    /// Every id above, for the catalog the tests gather from every module.
    public static let cliIDs: [DiagnosticID] = [.runTargetUnavailable, .cliFailed]
}
