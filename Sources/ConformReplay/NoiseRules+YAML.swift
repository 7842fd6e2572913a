import ConformCore
import ConformDiagnostics
import ConformTraffic
import ConformYAML

extension NoiseRules {
    /// Loads `ignore: [{path: …}, {header: …}]` (each with an optional `reason`), reporting every problem at once.
    public static func load(_ bytes: [UInt8], file: String) throws(YAMLParseFailure) -> NoiseRules {
        guard let root = try YAML.parse(bytes, file: file) else { return NoiseRules() }
        var reader = YAMLConfigReader(file: file)
        var rules: [Rule] = []
        for (key, value) in reader.pairs(root, allowed: ["ignore"], in: "a noise file") where key == "ignore" {
            guard let items = value.sequenceItems else {
                reader.error(value, "ignore must be a list", help: "write one '- path: …' or '- header: …' per line")
                continue
            }
            for item in items {
                var path: JSONPathPattern?
                var header: String?
                var reason: String?
                for (k, v) in reader.pairs(item, allowed: ["path", "header", "reason"], in: "an ignore rule") {
                    switch k {
                    case "path": path = reader.pathPattern(v)
                    case "header": header = reader.string(v, "header")
                    default: reason = reader.string(v, "reason")
                    }
                }
                switch (path, header) {
                case (let p?, nil): rules.append(.path(p, reason: reason))
                case (nil, let h?): rules.append(.header(h, reason: reason))
                case (.some, .some):
                    reader.error(item, "a rule has either path or header, not both", help: "split it into two rules")
                case (nil, nil):
                    if item.mappingPairs != nil,
                        !reader.diagnostics.contains(where: { ($0.mark.map { $0 >= item.mark }) == true })
                    {
                        reader.error(item, "a rule needs a path or a header", help: "add path: $.field or header: Name")
                    }
                }
            }
        }
        if let failure = reader.failure { throw failure }
        return NoiseRules(rules)
    }

    /// The rules as YAML a reviewer can read, with an optional comment block on top.
    public func yamlText(comment: [String] = []) -> String {
        let ignore = YAMLNode.string("ignore")
        let document = YAMLNode(
            kind: .mapping([YAMLNode.Pair(key: ignore, value: YAMLNode.sequence(rules.map { $0.yamlNode() }))]),
            mark: ignore.mark)
        return comment.map { "# \($0)\n" }.joined() + YAML.emit(document)
    }
}

extension NoiseRules.Rule {
    /// The rule as a noise file holds it: `path:` or `header:`, then `reason:` when `withReason` and there is one.
    func yamlNode(withReason: Bool = true) -> YAMLNode {
        var pairs: [YAMLNode.Pair]
        let reason: String?
        switch self {
        case .path(let pattern, let why):
            pairs = [YAMLNode.Pair(key: .string("path"), value: .string(pattern.description))]
            reason = why
        case .header(let name, let why):
            pairs = [YAMLNode.Pair(key: .string("header"), value: .string(name))]
            reason = why
        }
        if withReason, let reason { pairs.append(YAMLNode.Pair(key: .string("reason"), value: .string(reason))) }
        return YAMLNode(kind: .mapping(pairs), mark: YAMLNode.writtenMark)
    }
}

extension YAMLNode {
    /// Where nodes built to be written sit: they come from no file.
    static let writtenMark = SourceMark(line: 1, column: 1)

    /// A string scalar; the emitter writes it plain where that reads back as the same string, quoted otherwise.
    static func string(_ text: String) -> YAMLNode {
        YAMLNode(kind: .scalar(text, .doubleQuoted), mark: writtenMark)
    }

    /// A block sequence of `items`.
    static func sequence(_ items: [YAMLNode]) -> YAMLNode {
        YAMLNode(kind: .sequence(items), mark: writtenMark)
    }
}
