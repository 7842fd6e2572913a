import ConformDiagnostics

/// The ids of the diagnostics this module emits: yAML files: their syntax and limits, and reading their meaning (`YAMLDecodingContext`).
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

    /// Every id above, for the catalog the tests gather from every module.
    public static let yamlIDs: [DiagnosticID] = [
        .yamlSyntax, .yamlDuplicateKey, .yamlStructure, .yamlLimit, .yamlEncoding, .fileUnreadable, .fileEmpty,
        .yamlUnknownKey, .yamlWrongType, .yamlInvalidValue, .yamlMissingKey,
    ]
}
