import ConformDiagnostics

extension YAML {
    /// Builds a ``YAMLNode`` tree from parser events and records every problem libyaml does not check:
    /// duplicate keys, undefined and recursive aliases, alias expansion and nesting limits, tag mismatches, merge keys.
    ///
    /// Collections are built in frames mutated in place on a stack, so appending stays O(1).
    struct Composer {
        /// Whether the caller may feed further events.
        enum Step { case proceed, stop }

        private struct Frame {
            enum Shape { case sequence, mapping }
            var shape: Shape
            var mark: SourceMark
            var tag: String?
            var anchor: String?
            var items: GatherBuffer<YAMLNode>?
            var pairs: GatherBuffer<YAMLNode.Pair>?
            var pendingKey: YAMLNode?
            /// Keys seen so far: a short list first, a dictionary once the mapping grows.
            var recentKeys: [(key: YAMLScalar, mark: SourceMark)] = []
            var seenKeys: [YAMLScalar: SourceMark] = [:]
            /// Nodes in this subtree so far, aliases counted at their full expanded size.
            var nodeCount = 1
            /// For a streamed sequence, the keys leading to it: its items are handed over, not kept.
            var streamKeys: [String]?
        }

        private struct Anchored {
            var node: YAMLNode
            var nodeCount: Int
        }

        /// Mappings up to this many keys look for duplicates in a list; larger ones switch to a dictionary.
        private static let linearKeyLimit = 12

        let file: String
        let limits: YAMLLimits
        let streaming: ItemStream
        /// Items of streamed sequences completed since the caller last took them.
        private(set) var completedItems: [StreamedItem] = []
        var hasCompletedItems: Bool { !completedItems.isEmpty }
        private(set) var diagnostics: [Diagnostic] = []
        private(set) var root: YAMLNode?
        private var stack: [Frame] = []
        /// Buffers of finished frames, emptied and kept: a collection is gathered in a reused buffer and stored
        /// at its exact size, so the tree carries no growth slack and most collections cost one allocation.
        private var spareItems: [GatherBuffer<YAMLNode>] = []
        private var sparePairs: [GatherBuffer<YAMLNode.Pair>] = []
        private var spareKeys: [[(key: YAMLScalar, mark: SourceMark)]] = []
        private var anchors: [String: Anchored] = [:]
        private var totalNodes = 0
        private var documentCount = 0

        init(file: String, limits: YAMLLimits, streaming: ItemStream = ItemStream(paths: [])) {
            self.file = file
            self.limits = limits
            self.streaming = streaming
        }

        mutating func clearCompletedItems() { completedItems.removeAll(keepingCapacity: true) }

        /// The keys leading to a sequence starting now, when every enclosing collection is a mapping waiting for
        /// the value of a plain-text key and the path is one `streaming` names.
        private func streamKeysForNewSequence() -> [String]? {
            guard !stack.isEmpty, stack.count <= streaming.longestPath else { return nil }
            var keys: [String] = []
            for frame in stack {
                guard frame.shape == .mapping, let key = frame.pendingKey?.scalarText else { return nil }
                keys.append(key)
            }
            return streaming.matches(keys) ? keys : nil
        }

        mutating func report(
            _ mark: SourceMark, _ message: String, help: String?, id: DiagnosticID = .yamlStructure
        ) {
            diagnostics.append(Diagnostic(id, file: file, mark: mark, message: message, help: help))
        }

        mutating func documentStart(mark: SourceMark) -> Step {
            documentCount += 1
            guard documentCount == 1 else {
                report(
                    mark, "expected a single document in the stream, but found another document",
                    help:
                        "a suite file holds one document; remove this '---' and what follows, or move it to its own file"
                )
                return .stop
            }
            return .proceed
        }

        mutating func scalar(
            _ text: String, style: YAMLNode.ScalarStyle, tag: String?, anchor: String?, mark: SourceMark,
            endMark: SourceMark
        ) -> Step {
            let node = YAMLNode(kind: .scalar(text, style), mark: mark, tag: tag, endMark: endMark)
            if let tag { checkScalarTag(tag, of: node) }
            if anchor == nil, tag == nil, style == .plain, text == "<<",
                let top = stack.last, top.shape == .mapping, top.pendingKey == nil
            {
                report(
                    mark, "merge keys ('<<') are not supported",
                    help: "write the merged keys out in full in this mapping")
            }
            if let anchor { anchors[anchor] = Anchored(node: node, nodeCount: 1) }
            return add(node, nodeCount: 1)
        }

        mutating func collectionStart(
            sequence: Bool, tag: String?, anchor: String?, mark: SourceMark
        ) -> Step {
            guard stack.count < limits.maxDepth else {
                report(
                    mark, "collections are nested deeper than \(limits.maxDepth) levels",
                    help: "flatten the document; nesting this deep is not a meaningful suite", id: .yamlLimit)
                return .stop
            }
            var frame = Frame(shape: sequence ? .sequence : .mapping, mark: mark, tag: tag, anchor: anchor)
            if sequence {
                frame.items = spareItems.popLast() ?? GatherBuffer()
                // An anchored list is kept whole: an alias to it later must find its items, not placeholders.
                if !streaming.paths.isEmpty, anchor == nil { frame.streamKeys = streamKeysForNewSequence() }
            } else {
                frame.pairs = sparePairs.popLast() ?? GatherBuffer()
                if let spare = spareKeys.popLast() { frame.recentKeys = spare }
            }
            stack.append(frame)
            return .proceed
        }

        mutating func collectionEnd(endMark: SourceMark) -> Step {
            guard var frame = stack.popLast() else { return .proceed }
            let kind: YAMLNode.Kind
            if frame.shape == .sequence {
                let items = frame.items!
                kind = .sequence(items.takeAll())
                spareItems.append(items)
            } else {
                let pairs = frame.pairs!
                kind = .mapping(pairs.takeAll())
                sparePairs.append(pairs)
                frame.recentKeys.removeAll(keepingCapacity: true)
                spareKeys.append(frame.recentKeys)
            }
            let node = YAMLNode(kind: kind, mark: frame.mark, tag: frame.tag, endMark: endMark)
            if let tag = frame.tag { checkCollectionTag(tag, of: node) }
            if let anchor = frame.anchor { anchors[anchor] = Anchored(node: node, nodeCount: frame.nodeCount) }
            totalNodes -= frame.nodeCount - 1
            return add(node, nodeCount: frame.nodeCount)
        }

        mutating func alias(_ name: String, mark: SourceMark, endMark: SourceMark) -> Step {
            guard let anchored = anchors[name] else {
                if stack.contains(where: { $0.anchor == name }) {
                    report(
                        mark, "found recursive alias '\(name)'",
                        help: "an alias cannot refer to the node that contains it; copy the content instead")
                } else {
                    report(
                        mark, "found undefined alias '\(name)'",
                        help: "define the anchor '&\(name)' on a node before this alias, or fix the name")
                }
                return add(YAMLNode(kind: .scalar("", .plain), mark: mark, endMark: endMark), nodeCount: 1)
            }
            var node = anchored.node
            node.mark = mark
            node.endMark = endMark
            return add(node, nodeCount: anchored.nodeCount)
        }

        /// The document's root, or `nil` for an empty document.
        var document: YAMLNode? {
            guard let root else { return nil }
            if root.tag == nil, case .scalar("", .plain) = root.kind { return nil }
            return root
        }

        private mutating func add(_ node: consuming YAMLNode, nodeCount: Int) -> Step {
            totalNodes += nodeCount
            guard totalNodes <= limits.maxNodes else {
                report(
                    node.mark, "document expands to more than \(limits.maxNodes) nodes once aliases are resolved",
                    help: "use fewer aliases to large nodes (this looks like an alias bomb), or split the document",
                    id: .yamlLimit)
                return .stop
            }
            guard !stack.isEmpty else {
                root = node
                return .proceed
            }
            let top = stack.count - 1
            stack[top].nodeCount += nodeCount
            switch stack[top].shape {
            case .sequence:
                if let keys = stack[top].streamKeys {
                    let placeholder = YAMLNode(kind: .scalar("", .plain), mark: node.mark, endMark: node.endMark)
                    completedItems.append(StreamedItem(keys: keys, index: stack[top].items!.count, node: node))
                    stack[top].items!.append(placeholder)
                } else {
                    stack[top].items!.append(node)
                }
            case .mapping:
                if let key = stack[top].pendingKey {
                    stack[top].pairs!.append(YAMLNode.Pair(key: key, value: node))
                    stack[top].pendingKey = nil
                } else {
                    checkDuplicate(key: node, inFrame: top)
                    stack[top].pendingKey = node
                }
            }
            return .proceed
        }

        private mutating func checkDuplicate(key: YAMLNode, inFrame index: Int) {
            guard let identity = key.resolvedScalar else { return }
            let first: SourceMark?
            if stack[index].seenKeys.isEmpty {
                first = stack[index].recentKeys.first(where: { $0.key == identity })?.mark
                if first == nil {
                    stack[index].recentKeys.append((identity, key.mark))
                    if stack[index].recentKeys.count > Self.linearKeyLimit {
                        for (key, mark) in stack[index].recentKeys { stack[index].seenKeys[key] = mark }
                        stack[index].recentKeys = []
                    }
                }
            } else {
                first = stack[index].seenKeys[identity]
                if first == nil { stack[index].seenKeys[identity] = key.mark }
            }
            if let first {
                let name = key.scalarText ?? ""
                report(
                    key.mark, "duplicate key '\(name)'",
                    help: "remove one of the two '\(name)' keys; the first is at \(first)", id: .yamlDuplicateKey)
            }
        }

        private mutating func checkScalarTag(_ tag: String, of node: YAMLNode) {
            guard let text = node.scalarText else { return }
            if YAMLScalar.coreScalarTags.contains(tag) {
                if YAMLScalar.resolving(text, coreTag: tag) == nil {
                    report(
                        node.mark, "'\(text)' is not a valid \(tag) value",
                        help: "write a valid \(tag.dropFirst(2)) or remove the '\(tag)' tag")
                }
            } else if tag == "!!seq" || tag == "!!map" {
                report(node.mark, "a scalar cannot carry the \(tag) tag", help: "remove the '\(tag)' tag")
            }
        }

        private mutating func checkCollectionTag(_ tag: String, of node: YAMLNode) {
            let expected = node.sequenceItems != nil ? "!!seq" : "!!map"
            if tag.hasPrefix("!!"), tag != expected,
                tag == "!!seq" || tag == "!!map" || YAMLScalar.coreScalarTags.contains(tag)
            {
                report(
                    node.mark, "a \(node.sequenceItems != nil ? "sequence" : "mapping") cannot carry the \(tag) tag",
                    help: "remove the '\(tag)' tag")
            }
        }
    }
}
