import ConformDiagnostics

/// The ids of the diagnostics this module emits: the reference implementation's configuration.
extension DiagnosticID {
    /// The reference implementation's configuration is not valid.
    public static let referenceConfigInvalid = DiagnosticID("reference.config-invalid")

    /// Every id above, for the catalog the tests gather from every module.
    public static let referenceIDs: [DiagnosticID] = [.referenceConfigInvalid]
}
