import ConformDiagnostics

/// The ids of the diagnostics this module emits: certification from an SDK's tests.
extension DiagnosticID {
    /// A bundled suite was asked for by a name that does not exist.
    public static let certificationUnknownSuite = DiagnosticID("certification.unknown-suite")

    /// Every id above, for the catalog the tests gather from every module.
    public static let certificationIDs: [DiagnosticID] = [.certificationUnknownSuite]
}
