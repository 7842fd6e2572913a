/// Limits that keep hostile input from crashing the loader or exhausting memory.
public struct YAMLLimits: Sendable, Hashable {
    /// Largest accepted file, in bytes.
    public var maxBytes: Int
    /// Deepest accepted nesting of collections.
    public var maxDepth: Int
    /// Most nodes the document may expand to once aliases are resolved (alias-bomb guard).
    public var maxNodes: Int

    public init(maxBytes: Int = 8 << 20, maxDepth: Int = 200, maxNodes: Int = 1_000_000) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
    }

    public static let `default` = YAMLLimits()
}

/// Every problem found in one file; a loader reports them all, not only the first.
public struct YAMLParseFailure: Error, Sendable, Hashable {
    public var diagnostics: [YAMLDiagnostic]

    public init(_ diagnostics: [YAMLDiagnostic]) { self.diagnostics = diagnostics }
}

/// The entry points of the YAML layer: parse to a tree of ``YAMLNode``, resolve scalars, emit, render diagnostics.
public enum YAML {
    /// Parses the single document in `bytes` (named `file` in diagnostics); `nil` for an empty document.
    public static func parse(
        _ bytes: [UInt8], file: String, limits: YAMLLimits = .default
    ) throws(YAMLParseFailure) -> YAMLNode? {
        throw YAMLParseFailure([
            YAMLDiagnostic(file: file, mark: SourceMark(line: 1, column: 1), message: "YAML parser not built yet")
        ])
    }
}
