import ConformCore
import ConformDiagnostics
import ConformYAML

/// Reads a small YAML configuration file (noise rules, a redaction policy), collecting every problem before failing.
public struct YAMLConfigReader: YAMLDecodingContext {
    /// The file the problems name.
    public let file: String
    /// Every problem met so far.
    public var diagnostics: [Diagnostic] = []
    /// The id of a problem that names none.
    public var defaultID: DiagnosticID { .configInvalid }

    /// A reader of `file` that has met no problem yet.
    public init(file: String) { self.file = file }

    /// The JSON path pattern of `node`'s `path`, or `nil` (and a problem) when it has none or it is not one.
    public mutating func pathPattern(_ node: YAMLNode) -> JSONPathPattern? {
        guard let text = string(node, "path") else { return nil }
        guard let pattern = JSONPathPattern(text) else {
            error(node, "'\(text)' is not a JSON path", help: "write a path such as $.bulks[*].bulkId or $..createdAt")
            return nil
        }
        return pattern
    }
}
