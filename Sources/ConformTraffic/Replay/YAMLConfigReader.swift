import ConformCore
import ConformDiagnostics
import ConformYAML

/// Collects every problem of a small YAML configuration file before failing.
struct YAMLConfigReader {
    let file: String
    var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    /// The problems in file order.
    var sorted: [Diagnostic] { Diagnostic.inSourceOrder(diagnostics) }

    mutating func error(_ node: YAMLNode, _ message: String, help: String, id: DiagnosticID = .configInvalid) {
        diagnostics.append(Diagnostic(id, file: file, mark: node.mark, message: message, help: help))
    }

    mutating func string(_ node: YAMLNode, what: String) -> String? {
        if case .scalar(let text, _) = node.kind, node.resolvedScalar != .null { return text }
        error(node, "\(what) must be a string", help: "write a plain or quoted string", id: .yamlWrongType)
        return nil
    }

    mutating func bool(_ node: YAMLNode, what: String) -> Bool? {
        if case .bool(let b)? = node.resolvedScalar { return b }
        error(node, "\(what) must be true or false", help: "write true or false", id: .yamlWrongType)
        return nil
    }

    mutating func strings(_ node: YAMLNode, what: String) -> [String] {
        guard let items = node.sequenceItems else {
            error(
                node, "\(what) must be a list of strings", help: "write [a, b] or one '- item' per line",
                id: .yamlWrongType)
            return []
        }
        return items.compactMap { string($0, what: "each item of \(what)") }
    }

    /// The pairs of a mapping, reporting keys outside `allowed`.
    mutating func pairs(_ node: YAMLNode, allowed: [String], what: String) -> [(key: String, value: YAMLNode)] {
        guard let pairs = node.mappingPairs else {
            error(node, "\(what) must be a mapping", help: "write key: value pairs", id: .yamlWrongType)
            return []
        }
        var out: [(String, YAMLNode)] = []
        for pair in pairs {
            guard let key = pair.key.scalarText else {
                error(
                    pair.key, "keys must be strings", help: "use one of: \(allowed.joined(separator: ", "))",
                    id: .yamlWrongType)
                continue
            }
            guard allowed.contains(key) else {
                error(
                    pair.key, "unknown key '\(key)' in \(what)", help: "use one of: \(allowed.joined(separator: ", "))",
                    id: .yamlUnknownKey)
                continue
            }
            out.append((key, pair.value))
        }
        return out
    }

    mutating func pathPattern(_ node: YAMLNode) -> JSONPathPattern? {
        guard let text = string(node, what: "path") else { return nil }
        guard let pattern = JSONPathPattern(text) else {
            error(node, "'\(text)' is not a JSON path", help: "write a path such as $.bulks[*].bulkId or $..createdAt")
            return nil
        }
        return pattern
    }
}
