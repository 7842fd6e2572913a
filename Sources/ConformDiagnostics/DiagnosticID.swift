/// Which kind of problem a ``Diagnostic`` reports: a stable dotted name, `area.kind`, from one catalog.
///
/// Every id lives here as a static constant and in ``catalog``; other modules cannot make new ones, so an id
/// seen in a report or a test always names an entry of this file.
public struct DiagnosticID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// The id with this name, if the catalog has one.
    public init?(rawValue: String) {
        guard let found = Self.catalog.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = found
    }
}

// MARK: - YAML (any YAML file, before its meaning is read)
extension DiagnosticID {
    /// libyaml could not parse the text.
    public static let yamlSyntax = DiagnosticID("yaml.syntax")
    /// A mapping has the same key twice.
    public static let yamlDuplicateKey = DiagnosticID("yaml.duplicate-key")
    /// Anchors, aliases, tags or several documents the loader does not accept.
    public static let yamlStructure = DiagnosticID("yaml.structure")
    /// The file exceeds a size, depth or node limit.
    public static let yamlLimit = DiagnosticID("yaml.limit")
    /// The bytes are not UTF-8.
    public static let yamlEncoding = DiagnosticID("yaml.encoding")
}

// MARK: - Decoding a YAML file's meaning (suites, noise and redaction rules, reference configuration)
extension DiagnosticID {
    /// The file cannot be read.
    public static let fileUnreadable = DiagnosticID("file.unreadable")
    /// The file holds nothing.
    public static let fileEmpty = DiagnosticID("file.empty")
    /// A key no schema allows here.
    public static let yamlUnknownKey = DiagnosticID("yaml.unknown-key")
    /// A value of the wrong kind (a scalar where a mapping belongs, text where a number belongs).
    public static let yamlWrongType = DiagnosticID("yaml.wrong-type")
    /// A value of the right kind that is out of range or not allowed.
    public static let yamlInvalidValue = DiagnosticID("yaml.invalid-value")
    /// A required key is missing.
    public static let yamlMissingKey = DiagnosticID("yaml.missing-key")
}

// MARK: - Suites
extension DiagnosticID {
    /// A suite breaks a rule of the suite format (names, flows, steps, matchers).
    public static let suiteInvalid = DiagnosticID("suite.invalid")
    /// A template (`{{ … }}`) does not parse.
    public static let suiteTemplate = DiagnosticID("suite.template")
    /// A template uses a name no step declares.
    public static let suiteUndeclaredName = DiagnosticID("suite.undeclared-name")
    /// A request URL names a host outside the target's origins (the user has not allowed it with `--allow-host`).
    public static let suiteOutsideTarget = DiagnosticID("suite.outside-target")
    /// A wait is for an event no step of the suite (or of the flow it names) emits.
    public static let suiteUnknownEvent = DiagnosticID("suite.unknown-event")
    /// Two suites share an id.
    public static let suiteDuplicateID = DiagnosticID("suite.duplicate-id")
    /// No suite files were found where suites were asked for.
    public static let suiteNotFound = DiagnosticID("suite.not-found")
}

// MARK: - Noise and redaction rules, reference configuration
extension DiagnosticID {
    /// A noise or redaction rule file is not valid.
    public static let configInvalid = DiagnosticID("config.invalid")
    /// The reference implementation's configuration is not valid.
    public static let referenceConfigInvalid = DiagnosticID("reference.config-invalid")
}

// MARK: - Recorded traffic
extension DiagnosticID {
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
}

// MARK: - Reports
extension DiagnosticID {
    /// A JSON run report cannot be read back.
    public static let reportInvalid = DiagnosticID("report.invalid")
    /// A report cannot be written.
    public static let reportUnwritable = DiagnosticID("report.unwritable")
}

// MARK: - Running
extension DiagnosticID {
    /// Suites had problems, so nothing was run.
    public static let runNotStarted = DiagnosticID("run.not-started")
    /// No suite or step matches the selection (`--tag`, `--filter`, `--step`).
    public static let runNoSelection = DiagnosticID("run.no-selection")
    /// The target to run against cannot be set up (an adapter that does not start, a bad URL).
    public static let runTargetUnavailable = DiagnosticID("run.target-unavailable")
    /// A bundled suite was asked for by a name that does not exist.
    public static let certificationUnknownSuite = DiagnosticID("certification.unknown-suite")
}

// MARK: - Command line
extension DiagnosticID {
    /// A server cannot listen on the address asked for.
    public static let cliCannotListen = DiagnosticID("cli.cannot-listen")
    /// A recording proxy could not forward an exchange or write it down.
    public static let cliProxy = DiagnosticID("cli.proxy")
    /// A command could not go on for a reason no other id names.
    public static let cliFailed = DiagnosticID("cli.failed")
    /// The local CA, or a TLS certificate or key given on the command line, cannot be made, read or used.
    public static let tlsUnusable = DiagnosticID("tls.unusable")
}

extension DiagnosticID {
    /// Every id, grouped by area in the order above.
    public static let catalog: [DiagnosticID] = [
        .yamlSyntax, .yamlDuplicateKey, .yamlStructure, .yamlLimit, .yamlEncoding,
        .fileUnreadable, .fileEmpty, .yamlUnknownKey, .yamlWrongType, .yamlInvalidValue, .yamlMissingKey,
        .suiteInvalid, .suiteTemplate, .suiteUndeclaredName, .suiteOutsideTarget, .suiteUnknownEvent, .suiteDuplicateID,
        .suiteNotFound,
        .configInvalid, .referenceConfigInvalid,
        .recordingInvalid, .recordingLineInvalid, .harInvalid, .harEntryInvalid, .traceInvalid, .secretUnredacted,
        .flowViolation,
        .reportInvalid, .reportUnwritable,
        .runNotStarted, .runNoSelection, .runTargetUnavailable, .certificationUnknownSuite,
        .cliCannotListen, .cliProxy, .cliFailed, .tlsUnusable,
    ]
}
