import ConformDiagnostics

/// The ids of the diagnostics this module emits: reports, read back and written.
extension DiagnosticID {
    /// A JSON run report cannot be read back.
    public static let reportInvalid = DiagnosticID("report.invalid")
    /// A report cannot be written.
    public static let reportUnwritable = DiagnosticID("report.unwritable")

    /// Every id above, for the catalog the tests gather from every module.
    public static let reportIDs: [DiagnosticID] = [.reportInvalid, .reportUnwritable]
}
