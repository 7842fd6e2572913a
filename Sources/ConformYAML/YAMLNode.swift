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

    /// Start and end positions, packed: a tree holds one node per scalar, so a node's size is the tree's size.
    /// Lines and columns past `UInt32.max` (beyond any file a parse accepts) are clamped; 0 means "no end mark".
    private var startLine: UInt32
    private var startColumn: UInt32
    private var endLine: UInt32
    private var endColumn: UInt32
    /// The explicit tag (`!!str`, `!custom`), if any; the core prefix `tag:yaml.org,2002:` is written `!!`.
    public var tag: String?
    public var kind: Kind

    public var mark: SourceMark {
        get { SourceMark(line: Int(startLine), column: Int(startColumn)) }
        set {
            startLine = UInt32(clamping: newValue.line)
            startColumn = UInt32(clamping: newValue.column)
        }
    }

    /// The position just after the node, when it came from a parse.
    public var endMark: SourceMark? {
        get { endLine == 0 ? nil : SourceMark(line: Int(endLine), column: Int(endColumn)) }
        set {
            endLine = newValue.map { UInt32(clamping: max(1, $0.line)) } ?? 0
            endColumn = newValue.map { UInt32(clamping: $0.column) } ?? 0
        }
    }

    public init(kind: Kind, mark: SourceMark, tag: String? = nil, endMark: SourceMark? = nil) {
        self.kind = kind
        self.tag = tag
        startLine = UInt32(clamping: mark.line)
        startColumn = UInt32(clamping: mark.column)
        endLine = endMark.map { UInt32(clamping: max(1, $0.line)) } ?? 0
        endColumn = endMark.map { UInt32(clamping: $0.column) } ?? 0
    }
}
