public import ConformDiagnostics

/// What every reader of a YAML file into a model shares: the file's name, every problem found so far (a reader
/// reports them all, not only the first), and the checks "a mapping", "text", "true or false", "a list of text" and
/// "only known keys, with a did-you-mean".
///
/// The suite loader, the noise and redaction rule readers and the reference configuration conform; each adds the
/// checks of its own model.
public protocol YAMLDecodingContext {
    /// The file named in every diagnostic.
    var file: String { get }
    /// The problems found so far, in the order found.
    var diagnostics: [Diagnostic] { get set }
    /// The id of a problem that no more specific id names (`suite.invalid`, `config.invalid`).
    var defaultID: DiagnosticID { get }
}

extension YAMLDecodingContext {
    /// Records a problem at `node`.
    public mutating func error(_ node: YAMLNode, _ message: String, help: String? = nil, id: DiagnosticID? = nil) {
        error(at: node.mark, message, help: help, id: id)
    }

    /// Records a problem at `mark`.
    public mutating func error(at mark: SourceMark, _ message: String, help: String? = nil, id: DiagnosticID? = nil) {
        diagnostics.append(Diagnostic(id ?? defaultID, file: file, mark: mark, message: message, help: help))
    }

    /// Every problem in file order, as the error a loader throws; `nil` when there is none.
    public var failure: YAMLParseFailure? {
        diagnostics.isEmpty ? nil : YAMLParseFailure(Diagnostic.inSourceOrder(diagnostics))
    }

    /// The pairs of a mapping, or a problem naming what was expected.
    public mutating func mapping(_ node: YAMLNode, _ what: String) -> [YAMLNode.Pair]? {
        if case .mapping(let pairs) = node.kind { return pairs }
        error(
            node, "\(what) must be a mapping, found \(node.kindDescription)",
            help: "write '\(what)' as 'key: value' lines", id: .yamlWrongType)
        return nil
    }

    /// Reports keys not in `allowed`, with a "did you mean" when one is close.
    public mutating func checkKeys(_ pairs: [YAMLNode.Pair], allowed: [String], in what: String) {
        for pair in pairs { _ = knownKey(pair, allowed: allowed, in: what) }
    }

    /// The pairs of a mapping whose keys are in `allowed`, reporting a node that is no mapping and every other key.
    public mutating func pairs(_ node: YAMLNode, allowed: [String], in what: String) -> [(
        key: String, value: YAMLNode
    )] {
        guard let pairs = mapping(node, what) else { return [] }
        return knownPairs(pairs, allowed: allowed, in: what)
    }

    private mutating func knownPairs(_ pairs: [YAMLNode.Pair], allowed: [String], in what: String) -> [(
        key: String, value: YAMLNode
    )] {
        var known: [(key: String, value: YAMLNode)] = []
        for pair in pairs {
            if let key = knownKey(pair, allowed: allowed, in: what) { known.append((key, pair.value)) }
        }
        return known
    }

    /// The key of `pair` when it is in `allowed`; a key that is no scalar or not allowed is reported.
    private mutating func knownKey(_ pair: YAMLNode.Pair, allowed: [String], in what: String) -> String? {
        guard case .scalar(let key, _) = pair.key.kind else {
            error(pair.key, "keys in \(what) must be plain text", id: .yamlWrongType)
            return nil
        }
        guard allowed.contains(key) else {
            let help =
                closestMatch(to: key, in: allowed).map { "did you mean '\($0)'?" }
                ?? "allowed keys in \(what): \(allowed.joined(separator: ", "))"
            error(pair.key, "unknown key '\(key)' in \(what)", help: help, id: .yamlUnknownKey)
            return nil
        }
        return key
    }

    /// The text of a non-null scalar, or a problem.
    public mutating func string(_ node: YAMLNode, _ what: String) -> String? {
        if case .scalar(let text, _) = node.kind, node.resolvedScalar != .null { return text }
        error(
            node, "\(what) must be text, found \(node.kindDescription)", help: "write it as a quoted string",
            id: .yamlWrongType)
        return nil
    }

    /// A boolean scalar, or a problem.
    public mutating func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        if case .bool(let b)? = node.resolvedScalar { return b }
        error(node, "\(what) must be true or false", help: "write true or false", id: .yamlWrongType)
        return nil
    }

    /// The texts of a list, or a problem for the node and for every item that is not text.
    public mutating func strings(_ node: YAMLNode, _ what: String) -> [String] {
        guard let items = node.sequenceItems else {
            error(
                node, "\(what) must be a list of strings", help: "write [a, b] or one '- item' per line",
                id: .yamlWrongType)
            return []
        }
        return items.compactMap { string($0, "each item of \(what)") }
    }
}

extension YAMLNode {
    /// What the node is, for a message: `a mapping`, `a list`, `nothing (null)`, `a number (3)`, `text 'x'`.
    public var kindDescription: String {
        switch kind {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let text, _):
            switch resolvedScalar {
            case .null?: return "nothing (null)"
            case .bool?: return "a boolean (\(text))"
            case .int?, .double?: return "a number (\(text))"
            default: return "text '\(text)'"
            }
        }
    }
}
