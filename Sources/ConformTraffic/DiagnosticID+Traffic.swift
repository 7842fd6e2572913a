import ConformDiagnostics

/// The ids of the diagnostics this module emits: recorded traffic, traces, noise and redaction rules, the secret scan.
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

    /// Every id above, for the catalog the tests gather from every module.
    public static let trafficIDs: [DiagnosticID] = [
        .configInvalid, .recordingInvalid, .recordingLineInvalid, .harInvalid, .harEntryInvalid, .traceInvalid,
        .secretUnredacted,
    ]
}
