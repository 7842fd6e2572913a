import ConformCore
import ConformDiagnostics
import ConformYAML

/// Reads a small YAML configuration file (noise rules, a redaction policy), collecting every problem before failing.
struct YAMLConfigReader: YAMLDecodingContext {
    let file: String
    var diagnostics: [Diagnostic] = []
    var defaultID: DiagnosticID { .configInvalid }

    init(file: String) { self.file = file }

    mutating func pathPattern(_ node: YAMLNode) -> JSONPathPattern? {
        guard let text = string(node, "path") else { return nil }
        guard let pattern = JSONPathPattern(text) else {
            error(node, "'\(text)' is not a JSON path", help: "write a path such as $.bulks[*].bulkId or $..createdAt")
            return nil
        }
        return pattern
    }
}
