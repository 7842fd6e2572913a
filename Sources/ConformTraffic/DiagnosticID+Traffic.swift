import ConformDiagnostics

/// The ids of the diagnostics this module emits: recorded traffic, traces, noise and redaction rules, the secret scan and the flow checker.
extension DiagnosticID {
    /// A noise or redaction rule file is not valid.
    public static let configInvalid = DiagnosticID("config.invalid")
    /// A recording file cannot be read or is not a recording.
    public static let recordingInvalid = DiagnosticID("recording.invalid")
    /// One line of a recording (JSON Lines) is not a valid exchange.
    public static let recordingLineInvalid = DiagnosticID("recording.line-invalid")
    /// A HAR file is not JSON or not HAR.
    public static let harInvalid = DiagnosticID("har.invalid")
    /// One entry of a HAR file is not a valid exchange.
    public static let harEntryInvalid = DiagnosticID("har.entry-invalid")
    /// A trace file is not valid.
    public static let traceInvalid = DiagnosticID("trace.invalid")
    /// A recording holds a secret that was not redacted.
    public static let secretUnredacted = DiagnosticID("secret.unredacted")
    /// Recorded client traffic breaks a rule of the flow.
    public static let flowViolation = DiagnosticID("flow.violation")
    /// A server (the recording proxy's, `serve`'s, `mock`'s) cannot listen on the address asked for.
    public static let cliCannotListen = DiagnosticID("cli.cannot-listen")
    /// A recording proxy could not forward an exchange or write it down.
    public static let cliProxy = DiagnosticID("cli.proxy")

    /// Every id above, for the catalog the tests gather from every module.
    public static let trafficIDs: [DiagnosticID] = [
        .configInvalid, .recordingInvalid, .recordingLineInvalid, .harInvalid, .harEntryInvalid, .traceInvalid,
        .secretUnredacted, .flowViolation, .cliCannotListen, .cliProxy,
    ]
}
