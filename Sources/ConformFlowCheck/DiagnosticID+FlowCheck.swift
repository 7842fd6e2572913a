import ConformDiagnostics

/// The ids of the diagnostics this module emits: the flow checker's.
extension DiagnosticID {
    /// Recorded client traffic breaks a rule of the flow.
    public static let flowViolation = DiagnosticID("flow.violation")

    /// Every id above, for the catalog the tests gather from every module.
    public static let flowCheckIDs: [DiagnosticID] = [.flowViolation]
}
