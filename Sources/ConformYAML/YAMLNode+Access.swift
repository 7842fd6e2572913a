extension YAMLNode {
    /// The scalar's text as written (after unescaping), or `nil` for a collection.
    public var scalarText: String? {
        if case .scalar(let text, _) = kind { return text }
        return nil
    }

    /// The mapping's pairs in source order, or `nil` when the node is not a mapping.
    public var mappingPairs: [Pair]? {
        if case .mapping(let pairs) = kind { return pairs }
        return nil
    }

    /// The sequence's items, or `nil` when the node is not a sequence.
    public var sequenceItems: [YAMLNode]? {
        if case .sequence(let items) = kind { return items }
        return nil
    }

    /// The value of the first pair whose key is the string `key`, or `nil` (also for non-mappings).
    public subscript(key: String) -> YAMLNode? {
        guard case .mapping(let pairs) = kind else { return nil }
        for pair in pairs where pair.key.resolvedScalar == .string(key) { return pair.value }
        return nil
    }

    /// The scalar's core-schema value, honouring explicit tags; `nil` for collections.
    ///
    /// Quoted and block scalars are strings, `!` forces a string, and tags outside the core schema give the text.
    public var resolvedScalar: YAMLScalar? {
        guard case .scalar(let text, let style) = kind else { return nil }
        guard let tag else { return style == .plain ? .resolvingPlain(text) : .string(text) }
        return YAMLScalar.resolving(text, coreTag: tag) ?? .string(text)
    }

    /// Whether both trees hold the same content and tags, ignoring marks and how scalars were written.
    public func hasSameContent(as other: YAMLNode) -> Bool {
        guard tag == other.tag else { return false }
        switch (kind, other.kind) {
        case (.scalar, .scalar):
            switch (resolvedScalar, other.resolvedScalar) {
            case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
            case (let a, let b): return a == b
            }
        case (.sequence(let a), .sequence(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.hasSameContent(as: $1) }
        case (.mapping(let a), .mapping(let b)):
            return a.count == b.count
                && zip(a, b).allSatisfy { $0.key.hasSameContent(as: $1.key) && $0.value.hasSameContent(as: $1.value) }
        default:
            return false
        }
    }
}
