extension YAML {
    /// Block-style YAML for `node` that parses back to a tree with the same content
    /// (see ``YAMLNode/hasSameContent(as:)``); strings are quoted only where they must be.
    public static func emit(_ node: YAMLNode) -> String {
        var emitter = Emitter()
        emitter.root(node)
        return emitter.output
    }
}

/// Writes block-style YAML: two-space indentation, compact `- key: value` items, `[]` and `{}` for empty collections.
struct Emitter {
    private(set) var output = ""

    private static let indentStep = 2
    /// libyaml refuses implicit keys longer than 1024 characters; longer keys use the explicit `? ` form.
    private static let maxImplicitKeyLength = 1000

    mutating func root(_ node: YAMLNode) {
        switch node.kind {
        case .scalar:
            output += properties(node) + inlineScalar(node) + "\n"
        case .sequence(let items) where !items.isEmpty:
            if let tag = node.tag { output += "--- \(Self.tagText(tag))\n" }
            sequence(items, indent: 0, firstInline: false)
        case .mapping(let pairs) where !pairs.isEmpty:
            if let tag = node.tag { output += "--- \(Self.tagText(tag))\n" }
            mapping(pairs, indent: 0, firstInline: false)
        default:
            output += properties(node) + Self.emptyCollection(node) + "\n"
        }
    }

    /// Writes `pairs` at column `indent`; when `firstInline`, the first pair continues the current line.
    private mutating func mapping(_ pairs: [YAMLNode.Pair], indent: Int, firstInline: Bool) {
        for (index, pair) in pairs.enumerated() {
            if index > 0 || !firstInline { output += String(repeating: " ", count: indent) }
            if let key = implicitKey(pair.key) {
                output += key + ":"
                value(pair.value, indent: indent)
            } else {
                output += "? "
                item(pair.key, indent: indent + Self.indentStep)
                output += String(repeating: " ", count: indent) + ": "
                item(pair.value, indent: indent + Self.indentStep)
            }
        }
    }

    /// Writes `items` at column `indent`; when `firstInline`, the first item continues the current line.
    private mutating func sequence(_ items: [YAMLNode], indent: Int, firstInline: Bool) {
        for (index, node) in items.enumerated() {
            if index > 0 || !firstInline { output += String(repeating: " ", count: indent) }
            output += "- "
            item(node, indent: indent + Self.indentStep)
        }
    }

    /// Writes a mapping value after `key:` written at column `indent`.
    private mutating func value(_ node: YAMLNode, indent: Int) {
        let inner = indent + Self.indentStep
        switch node.kind {
        case .scalar:
            output += " " + properties(node)
            scalar(node, contentIndent: inner)
        case .sequence(let items) where !items.isEmpty:
            output += (node.tag.map { " " + Self.tagText($0) } ?? "") + "\n"
            sequence(items, indent: inner, firstInline: false)
        case .mapping(let pairs) where !pairs.isEmpty:
            output += (node.tag.map { " " + Self.tagText($0) } ?? "") + "\n"
            mapping(pairs, indent: inner, firstInline: false)
        default:
            output += " " + properties(node) + Self.emptyCollection(node) + "\n"
        }
    }

    /// Writes a node after `- `, `? ` or `: `, whose content sits at column `indent`.
    private mutating func item(_ node: YAMLNode, indent: Int) {
        switch node.kind {
        case .scalar:
            output += properties(node)
            scalar(node, contentIndent: indent)
        case .sequence(let items) where !items.isEmpty:
            // A tag stands alone on the item's line; an untagged collection starts on it.
            if let tag = node.tag { output += Self.tagText(tag) + "\n" }
            sequence(items, indent: indent, firstInline: node.tag == nil)
        case .mapping(let pairs) where !pairs.isEmpty:
            if let tag = node.tag { output += Self.tagText(tag) + "\n" }
            mapping(pairs, indent: indent, firstInline: node.tag == nil)
        default:
            output += properties(node) + Self.emptyCollection(node) + "\n"
        }
    }

    /// Writes a scalar that ends its line; multi-line strings become literal blocks at `contentIndent`.
    private mutating func scalar(_ node: YAMLNode, contentIndent: Int) {
        guard let text = node.scalarText else { return }
        if node.resolvedScalar == .string(text), !YAMLQuoting.isPlainSafe(text, tagged: node.tag != nil),
            let block = YAMLQuoting.literalBlock(text, indent: contentIndent)
        {
            output += block
        } else {
            output += inlineScalar(node) + "\n"
        }
    }

    /// A scalar on one line: plain when that reads back the same, double-quoted otherwise.
    private func inlineScalar(_ node: YAMLNode) -> String {
        let text = node.scalarText ?? ""
        if node.tag == nil {
            guard case .string = node.resolvedScalar else {
                return text.isEmpty ? "null" : text
            }
        }
        return YAMLQuoting.isPlainSafe(text, tagged: node.tag != nil) ? text : YAMLQuoting.doubleQuoted(text)
    }

    /// The one-line form of a key, or `nil` when it needs the explicit `? ` form.
    private func implicitKey(_ key: YAMLNode) -> String? {
        guard case .scalar = key.kind else { return nil }
        let text = properties(key) + inlineScalar(key)
        return text.count <= Self.maxImplicitKeyLength ? text : nil
    }

    /// The tag followed by a space, or nothing.
    private func properties(_ node: YAMLNode) -> String {
        node.tag.map { Self.tagText($0) + " " } ?? ""
    }

    private static func emptyCollection(_ node: YAMLNode) -> String {
        node.sequenceItems != nil ? "[]" : "{}"
    }

    /// `!!str` and `!local` as they are; any other tag URI in verbatim form `!<…>`.
    private static func tagText(_ tag: String) -> String {
        tag.hasPrefix("!") ? tag : "!<\(tag)>"
    }
}
