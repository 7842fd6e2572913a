import ConformDiagnostics

/// The ids of the diagnostics this module emits: the recording proxy's and its listeners'.
extension DiagnosticID {
    /// A server (the recording proxy's, `serve`'s, `mock`'s) cannot listen on the address asked for.
    public static let cliCannotListen = DiagnosticID("cli.cannot-listen")
    /// A recording proxy could not forward an exchange or write it down.
    public static let cliProxy = DiagnosticID("cli.proxy")
    /// The local CA, or a TLS certificate or key given on the command line, cannot be made, read or used.
    public static let tlsUnusable = DiagnosticID("tls.unusable")

    /// Every id above, for the catalog the tests gather from every module.
    public static let proxyIDs: [DiagnosticID] = [.cliCannotListen, .cliProxy, .tlsUnusable]
}
