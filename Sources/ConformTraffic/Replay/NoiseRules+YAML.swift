import ConformCore
import ConformYAML

extension NoiseRules {
    /// Loads `ignore: [{path: …}, {header: …}]` (each with an optional `reason`), reporting every problem at once.
    public static func load(_ bytes: [UInt8], file: String) throws(YAMLParseFailure) -> NoiseRules {
        guard let root = try YAML.parse(bytes, file: file) else { return NoiseRules() }
        var reader = YAMLConfigReader(file: file)
        var rules: [Rule] = []
        for (key, value) in reader.pairs(root, allowed: ["ignore"], what: "a noise file") where key == "ignore" {
            guard let items = value.sequenceItems else {
                reader.error(value, "ignore must be a list", help: "write one '- path: …' or '- header: …' per line")
                continue
            }
            for item in items {
                var path: JSONPathPattern?
                var header: String?
                var reason: String?
                for (k, v) in reader.pairs(item, allowed: ["path", "header", "reason"], what: "an ignore rule") {
                    switch k {
                    case "path": path = reader.pathPattern(v)
                    case "header": header = reader.string(v, what: "header")
                    default: reason = reader.string(v, what: "reason")
                    }
                }
                switch (path, header) {
                case (let p?, nil): rules.append(.path(p, reason: reason))
                case (nil, let h?): rules.append(.header(h, reason: reason))
                case (.some, .some):
                    reader.error(item, "a rule has either path or header, not both", help: "split it into two rules")
                case (nil, nil):
                    if item.mappingPairs != nil, !reader.diagnostics.contains(where: { $0.mark >= item.mark }) {
                        reader.error(item, "a rule needs a path or a header", help: "add path: $.field or header: Name")
                    }
                }
            }
        }
        if !reader.diagnostics.isEmpty { throw YAMLParseFailure(reader.sorted) }
        return NoiseRules(rules)
    }

    /// The rules as YAML a reviewer can read, with an optional comment block on top.
    public func yamlText(comment: [String] = []) -> String {
        var out = comment.map { "# \($0)\n" }.joined()
        if rules.isEmpty { return out + "ignore: []\n" }
        out += "ignore:\n"
        for rule in rules {
            switch rule {
            case .path(let p, let reason):
                out += "  - path: \(yamlQuoted(p.description))\n"
                if let reason { out += "    reason: \(yamlQuoted(reason))\n" }
            case .header(let h, let reason):
                out += "  - header: \(yamlQuoted(h))\n"
                if let reason { out += "    reason: \(yamlQuoted(reason))\n" }
            }
        }
        return out
    }
}
