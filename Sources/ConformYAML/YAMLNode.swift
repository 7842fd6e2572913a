public import ConformDiagnostics

/// A YAML node with its start mark; mappings keep key order and every key's own mark.
public struct YAMLNode: Sendable, Hashable {
    /// How a scalar was written: quoted scalars are always strings under the core schema.
    public enum ScalarStyle: Sendable, Hashable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// One key/value pair of a mapping.
    public struct Pair: Sendable, Hashable {
        public var key: YAMLNode
        public var value: YAMLNode

        public init(key: YAMLNode, value: YAMLNode) {
            self.key = key
            self.value = value
        }
    }

    public enum Kind: Sendable, Hashable {
        case scalar(String, ScalarStyle)
        case sequence([YAMLNode])
        case mapping([Pair])
    }

    public var kind: Kind
    public var mark: SourceMark
    /// The explicit tag (`!!str`, `!custom`), if any; the core prefix `tag:yaml.org,2002:` is written `!!`.
    public var tag: String?
    /// The position just after the node, when it came from a parse.
    public var endMark: SourceMark?

    public init(kind: Kind, mark: SourceMark, tag: String? = nil, endMark: SourceMark? = nil) {
        self.kind = kind
        self.mark = mark
        self.tag = tag
        self.endMark = endMark
    }
}
