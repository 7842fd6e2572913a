import ConformCore
import ConformRunner
import Foundation
import Testing

@testable import ConformReport

/// The certification page links every decision, endpoint and flow-step id it cites to an appendix entry that
/// summarises it and names its section of the shipped documents.
@Suite struct HTMLReporterReferencesTests {
    @Test func citedIdsLinkToTheirAppendixEntries() async throws {
        let page = try await renderCertification()
        // Spec lines of suites and steps, the suite's flow step, the assumed check's decision, the header.
        #expect(
            page.contains(
                "<a class=\"ref\" href=\"#ref-flow-2-login\">flow step 2</a>; API <a class=\"ref\" href=\"#ref-m4\">M4</a>"
            ))
        #expect(page.contains("<code><a class=\"ref\" href=\"#ref-flow-1-registration\">1-registration</a></code>"))
        #expect(page.contains("assumed <a class=\"ref\" href=\"#ref-d10\">D10</a>"))
        #expect(
            page.contains("<dt>Decisions not met</dt><dd><code><a class=\"ref\" href=\"#ref-d10\">D10</a></code></dd>"))
        // Every link to an entry lands on one, and each entry is there once.
        let targets = Set(page.matches(of: #/href="#(ref-[a-z0-9-]+)"/#).map { String($0.output.1) })
        #expect(targets.count >= 8)
        for target in targets {
            #expect(page.components(separatedBy: "id=\"\(target)\"").count == 2, "\(target) is not one entry")
        }
    }

    @Test func appendixSummarisesEachCitedIdAndNamesItsSection() async throws {
        let page = try await renderCertification()
        guard let start = page.range(of: "<section class=\"references\" id=\"references\"") else {
            Issue.record("the page has no appendix")
            return
        }
        let appendix = String(page[start.lowerBound...])
        let cited = ["1-registration", "2-login", "8-hygiene", "M1", "M4", "D2", "D9", "D10", "D11"]
        for id in cited {
            let citation = SpecCitation(id: id, kind: SpecCitation.kind(of: id))
            let documented = try #require(citation.documented, "\(id) has no documented section")
            #expect(appendix.contains(HTMLReporter.inlineCode(documented.summary)), "\(id)'s summary is not quoted")
            #expect(appendix.contains("Described in <code>\(citation.section)</code>"), "\(id) names no section")
        }
        #expect(appendix.contains("Described in <code>docs/decisions.md#d10</code>"))
        #expect(appendix.contains("Described in <code>docs/flow.md#2-login</code>"))
        // Only what the page cites: nothing cites D5 or B6.
        #expect(!appendix.contains("id=\"ref-d5\""))
        #expect(!appendix.contains("id=\"ref-b6\""))
        // Flow steps first, then endpoints, then decisions.
        let order = ["id=\"ref-flow-1-registration\"", "id=\"ref-m1\"", "id=\"ref-d2\""].map {
            appendix.range(of: $0)?.lowerBound
        }
        #expect(order.allSatisfy { $0 != nil } && order == order.sorted { $0! < $1! })
    }

    @Test func anIdNoDocumentDescribesIsListedAsSuch() {
        let step = StepResult(
            suiteID: "own", flow: "main", index: 0, name: "n", file: "own.yaml", mark: .init(line: 1, column: 1),
            spec: SpecReference(section: "API M99 <b>", decisions: ["D77"]), verdict: .pass)
        let run = RunResult(
            suites: [SuiteResult(suite: Suite(id: "own", title: "t", flows: []), steps: [step], duration: 0)],
            duration: 0, target: "x")
        let page = HTMLReporter(sink: MemorySink(), date: "d", deterministic: true).render(run)
        #expect(page.contains("API <a class=\"ref\" href=\"#ref-m99\">M99</a> &lt;b&gt;"))
        #expect(page.contains("<div id=\"ref-d77\"><dt><code>D77</code></dt><dd class=\"muted\">Not described"))
        #expect(page.contains("<div id=\"ref-m99\"><dt><code>M99</code></dt><dd class=\"muted\">Not described"))
    }

    @Test func aPageCitingNothingHasNoAppendix() {
        let step = StepResult(
            suiteID: "s", flow: "main", index: 0, name: "n", file: "f.yaml", mark: .init(line: 1, column: 1),
            spec: SpecReference(section: "personalization-flow.txt"), verdict: .pass)
        let run = RunResult(
            suites: [SuiteResult(suite: Suite(id: "s", title: "t", flows: []), steps: [step], duration: 0)],
            duration: 0, target: "x")
        let page = HTMLReporter(sink: MemorySink(), date: "d", deterministic: true).render(run)
        #expect(!page.contains("id=\"references\""))
        #expect(page.contains("personalization-flow.txt"))
    }
}
