import ConformCore
import Foundation
import Testing

/// The tags of the bundled suites, as `docs/suites.md` lists them for `conform run --tag`.
@Suite struct SuiteTagsTests {
    @Test func everyBundledSuiteIsTaggedAndTheDocsListTheTags() throws {
        let suites = try SuitesBundle.load()
        for suite in suites { #expect(!suite.tags.isEmpty, "\(suite.file) has no tags") }
        var byTag: [String: [String]] = [:]
        for suite in suites { for tag in suite.tags { byTag[tag, default: []].append(suite.id) } }
        var table = "| tag | suites |\n|---|---|\n"
        for (tag, ids) in byTag.sorted(by: { $0.key < $1.key }) {
            table += "| `\(tag)` | " + ids.map { "`\($0)`" }.joined(separator: ", ") + " |\n"
        }
        try DocsSection(name: "suite-tags").check(table)
    }
}
