import ConformDiagnostics

/// The ids of the diagnostics this module emits: loading the suites of a run and selecting from them.
extension DiagnosticID {
    /// Two suites share an id.
    public static let suiteDuplicateID = DiagnosticID("suite.duplicate-id")
    /// No suite files were found where suites were asked for.
    public static let suiteNotFound = DiagnosticID("suite.not-found")
    /// Suites had problems, so nothing was run.
    public static let runNotStarted = DiagnosticID("run.not-started")
    /// No suite or step matches the selection (`--tag`, `--filter`, `--step`).
    public static let runNoSelection = DiagnosticID("run.no-selection")

    /// Every id above, for the catalog the tests gather from every module.
    public static let runnerIDs: [DiagnosticID] = [.suiteDuplicateID, .suiteNotFound, .runNotStarted, .runNoSelection]
}

/// The words of a run that did not start, written once (`run`, `diff` and `ConformTesting` say it alike).
extension DiagnosticMessage {
    /// The suites had `count` problems, so nothing was run.
    public static func suitesHaveProblems(_ count: Int) -> DiagnosticMessage {
        DiagnosticMessage(
            .runNotStarted, "\(count) problem\(count == 1 ? "" : "s") in the suites; nothing was run",
            help: "fix each problem above ('conform validate' on the files checks them without running)")
    }
}
