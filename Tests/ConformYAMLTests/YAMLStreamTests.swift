import ConformDiagnostics
import ConformYAML
import Testing

@Suite struct YAMLStreamTests {
    static let document = """
        title: t
        vars: {list: [1, 2]}
        steps:
          - &first {name: a, items: [x, y]}
          - name: b
          - *first
        flows:
          one:
            - name: c
          two: [{name: d}, {name: e}]
        other: [{name: f}]
        """

    static let paths = YAML.ItemStream(paths: [["steps"], ["flows", nil]])

    func streamed(_ text: String) throws(YAMLParseFailure) -> (root: YAMLNode?, items: [YAML.StreamedItem]) {
        var items: [YAML.StreamedItem] = []
        let root = try YAML.parse(Array(text.utf8), file: "s.yaml", streaming: Self.paths) { items.append($0) }
        return (root, items)
    }

    @Test func handsOverTheItemsOfTheNamedListsInDocumentOrder() throws {
        let (_, items) = try streamed(Self.document)
        #expect(
            items.map(\.keys) == [
                ["steps"], ["steps"], ["steps"], ["flows", "one"], ["flows", "two"], ["flows", "two"],
            ])
        #expect(items.map(\.index) == [0, 1, 2, 0, 0, 1])
        #expect(items.map { $0.node["name"]?.scalarText } == ["a", "b", "a", "c", "d", "e"])
        // An alias item comes expanded, and nested lists inside an item stay in it.
        #expect(items[2].node["items"]?.sequenceItems?.count == 2)
        #expect(items[0].node.mark == SourceMark(line: 4, column: 5))
    }

    @Test func theTreeKeepsAnEmptyPlaceholderWithTheItemsMarks() throws {
        let (root, items) = try streamed(Self.document)
        let whole = try #require(try YAML.parse(Self.document, file: "s.yaml"))
        let tree = try #require(root)
        let placeholders = try #require(tree["steps"]?.sequenceItems)
        let originals = try #require(whole["steps"]?.sequenceItems)
        #expect(placeholders.count == 3)
        for (placeholder, original) in zip(placeholders, originals) {
            #expect(placeholder.scalarText == "")
            #expect(placeholder.mark == original.mark)
            #expect(placeholder.endMark == original.endMark)
        }
        // Put back, the items give the tree a parse without streaming gives.
        var rebuilt = tree
        rebuilt = replacing(rebuilt, items: items)
        #expect(rebuilt == whole)
        // Lists on other paths are not streamed.
        #expect(tree["other"]?.sequenceItems?.first?["name"]?.scalarText == "f")
        #expect(tree["vars"]?["list"]?.sequenceItems?.count == 2)
    }

    @Test func itemsBeforeAnErrorAreHandedOverAndTheParseStillFails() {
        var items: [YAML.StreamedItem] = []
        let text = "steps:\n  - {name: a}\n  - {name: b}\n  - {name: [c\n"
        #expect(throws: YAMLParseFailure.self) {
            _ = try YAML.parse(Array(text.utf8), file: "s.yaml", streaming: Self.paths) { items.append($0) }
        }
        #expect(items.map { $0.node["name"]?.scalarText } == ["a", "b"])
    }

    @Test func aRootThatIsNotAMappingStreamsNothing() throws {
        let (root, items) = try streamed("- steps\n- [1, 2]\n")
        #expect(items.isEmpty)
        #expect(root?.sequenceItems?.count == 2)
    }

    /// `tree` with each streamed item put back in its place.
    func replacing(_ tree: YAMLNode, items: [YAML.StreamedItem]) -> YAMLNode {
        guard case .mapping(var pairs) = tree.kind else { return tree }
        for (i, pair) in pairs.enumerated() {
            guard let key = pair.key.scalarText else { continue }
            if key == "steps", case .sequence(var list) = pair.value.kind {
                for item in items where item.keys == ["steps"] { list[item.index] = item.node }
                pairs[i].value.kind = .sequence(list)
            }
            if key == "flows", case .mapping(var flows) = pair.value.kind {
                for (j, flow) in flows.enumerated() {
                    guard let name = flow.key.scalarText, case .sequence(var list) = flow.value.kind else { continue }
                    for item in items where item.keys == ["flows", name] { list[item.index] = item.node }
                    flows[j].value.kind = .sequence(list)
                }
                pairs[i].value.kind = .mapping(flows)
            }
        }
        var rebuilt = tree
        rebuilt.kind = .mapping(pairs)
        return rebuilt
    }
}
