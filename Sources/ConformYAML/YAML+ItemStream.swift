extension YAML {
    /// The sequences whose items a parse hands over one by one (see ``YAML/parse(_:file:limits:streaming:take:)``).
    public struct ItemStream: Sendable, Hashable {
        /// Each path is the keys from the root mapping down to a sequence; `nil` stands for any key. `["steps"]`
        /// names the sequence under the root's `steps` key, `["flows", nil]` every sequence under a key of the
        /// root's `flows` mapping. Sequences inside sequences, and anchored sequences (an alias may repeat them),
        /// are never streamed.
        public let paths: [[String?]]
        /// The most keys any path has: deeper sequences are not looked at (computed once, not per sequence).
        let longestPath: Int

        public init(paths: [[String?]]) {
            self.paths = paths
            longestPath = paths.map(\.count).max() ?? 0
        }

        /// The path `keys` matches, if any.
        func matches(_ keys: [String]) -> Bool {
            paths.contains { path in
                path.count == keys.count
                    && zip(path, keys).allSatisfy { pattern, key in pattern == nil || pattern == key }
            }
        }
    }

    /// One item of a streamed sequence.
    public struct StreamedItem: Sendable {
        /// The keys from the root mapping down to the sequence, as written.
        public var keys: [String]
        /// The item's position in the sequence, from 0.
        public var index: Int
        public var node: YAMLNode
    }
}
