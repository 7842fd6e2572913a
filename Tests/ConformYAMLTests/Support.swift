import ConformDiagnostics
import ConformYAML
import Testing

/// Parses `text` as `suites/x.yaml` and returns the failure, or records an issue when the parse succeeds.
func parseFailure(_ text: String, limits: YAMLLimits = .default) -> YAMLParseFailure? {
    parseFailure(Array(text.utf8), limits: limits)
}

func parseFailure(_ bytes: [UInt8], limits: YAMLLimits = .default) -> YAMLParseFailure? {
    do {
        _ = try YAML.parse(bytes, file: "suites/x.yaml", limits: limits)
        Issue.record("expected the parse to fail")
        return nil
    } catch {
        return error
    }
}

/// Every diagnostic for `text`, rendered without colour.
func renderedFailure(_ text: String, limits: YAMLLimits = .default) -> String {
    parseFailure(text, limits: limits)?.rendered(source: text) ?? ""
}

func mark(_ line: Int, _ column: Int) -> SourceMark { SourceMark(line: line, column: column) }
