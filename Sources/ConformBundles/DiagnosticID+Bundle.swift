import ConformDiagnostics

/// The ids of the diagnostics of certification bundles (`conform run --bundle`, `conform verify`).
extension DiagnosticID {
    /// A certification bundle cannot be written, or is incomplete, changed or not a bundle.
    public static let bundleInvalid = DiagnosticID("bundle.invalid")
    /// A bundle's report does not follow from its exchange log and suites.
    public static let bundleDisagrees = DiagnosticID("bundle.disagrees")
    /// A key given to sign a bundle or to check its signature cannot be read or is not an Ed25519 key.
    public static let bundleKeyUnusable = DiagnosticID("bundle.key-unusable")

    /// Every id above, for the catalog the tests gather from every module.
    public static let bundleIDs: [DiagnosticID] = [.bundleInvalid, .bundleDisagrees, .bundleKeyUnusable]
}

extension BundleProblem {
    /// The problem as a `bundle.invalid` diagnostic naming the file inside the bundle.
    public var diagnostic: Diagnostic { Diagnostic(.bundleInvalid, message: "\(file): \(message)", help: help) }
}
