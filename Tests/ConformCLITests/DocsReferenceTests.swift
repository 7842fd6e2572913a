import ConformCore
import ConformFlowCheck
import ConformMobileMessaging
import ConformReference
import ConformReport
import ConformTestSupport
import Foundation
import Testing

/// The documents the reports cite ship with the project and cannot drift from the suites: every decision, endpoint
/// and flow step that a bundled suite, the flow checker or the reference cites has a section, every section is
/// cited and numbered in sequence, and the summaries the HTML report quotes are the documents' own.
@Suite struct DocsReferenceTests {
    static let generated = "Sources/ConformReport/SpecCitation+Documents.swift"

    @Test func sectionsAreAnchoredByTheirIdsAndNumberedInSequence() throws {
        let sections = try ShippedDocs.sections()
        for section in sections {
            #expect(
                section.anchor == section.citation.anchor,
                "\(section.location): section \(section.citation.id) is anchored '\(section.anchor)', not '\(section.citation.anchor)'"
            )
            #expect(!section.summary.isEmpty, "\(section.location): section \(section.citation.id) has no summary")
        }
        let ids = sections.map(\.citation.id)
        #expect(Set(ids).count == ids.count, "a section appears twice: \(ids)")
        func numbers(_ letter: String) -> [Int] {
            ids.filter { $0.hasPrefix(letter) && SpecCitation.kind(of: $0) != .flowStep }.compactMap {
                Int($0.dropFirst())
            }
        }
        for letter in ["D", "M", "B"] {
            let found = numbers(letter)
            #expect(found == Array(1...max(1, found.count)), "\(letter) sections are not \(letter)1…: \(found)")
        }
        let steps = sections.filter { $0.citation.kind == .flowStep }.map(\.citation.id)
        #expect(steps == MobileMessaging.flowSteps.map(\.name), "docs/flow.md steps \(steps) are not the suites' steps")
    }

    @Test func everythingCitedHasASection() throws {
        let documented = Set(try ShippedDocs.sections().map(\.citation))
        for cite in try Citations.collect().all {
            #expect(
                documented.contains(cite.citation), "\(cite.by) cites \(cite.citation.id), which no document describes")
        }
    }

    @Test func everySectionIsCited() throws {
        let cited = Set(try Citations.collect().all.map(\.citation))
        for section in try ShippedDocs.sections() where !cited.contains(section.citation) {
            Issue.record("\(section.location): nothing cites \(section.citation.id); remove the section or cite it")
        }
    }

    /// A spec line that names the flow names a step the documents have; one that cites a section of the API notes
    /// the kit was written from (`§3.7`) finds it in `docs/protocol.md#source-sections`.
    @Test func flowWordingAndSectionNumbersResolve() throws {
        let protocolPage = try ShippedDocs.text("docs/protocol.md")
        for suite in try SuitesBundle.load() {
            for (where_, spec) in Citations.specs(of: suite) {
                if spec.section.hasPrefix("flow") {
                    let steps = SpecCitation.citations(in: spec.section).filter { $0.kind == .flowStep }
                    #expect(!steps.isEmpty, "\(where_): '\(spec.section)' names no flow step docs/flow.md has")
                }
                for number in spec.section.matches(of: #/§\d+(?:\.\d+)?(?: step \d+(?:\.\d+)?)?/#) {
                    let cited = String(spec.section[number.range])
                    #expect(
                        protocolPage.contains("| \(cited) |"),
                        "\(where_): \(cited) is not in docs/protocol.md's table of section numbers")
                }
            }
        }
    }

    /// The summaries the report quotes are generated from the documents.
    @Test func reportSummariesAreTheDocumentsOwn() throws {
        let sections = try ShippedDocs.sections()
        var text = ""
        for section in sections {
            text += "        \(section.citation.id) | \(section.title)\n        \(section.summary)\n\n"
        }
        let file = """
            // Generated from docs/flow.md, docs/protocol.md and docs/decisions.md by DocsReferenceTests; do not edit by hand.
            // Rewrite it with: CONFORM_RECORD_GOLDENS=1 swift test --skip-build --filter DocsReferenceTests

            extension SpecCitation {
                /// Each section of the shipped documents: `ID | title` on one line, its summary on the next.
                static let documentedText = #\"\"\"
            \(text)        \"\"\"#
            }

            """
        let path = TestPaths.root.appendingPathComponent(Self.generated)
        if ProcessInfo.processInfo.environment["CONFORM_RECORD_GOLDENS"] == "1" {
            try file.write(to: path, atomically: true, encoding: .utf8)
        } else {
            #expect(
                try String(contentsOf: path, encoding: .utf8) == file,
                "\(Self.generated) is out of date; run with CONFORM_RECORD_GOLDENS=1 to rewrite it")
            for section in sections {
                #expect(
                    section.citation.documented
                        == SpecCitation.Documented(title: section.title, summary: section.summary),
                    "the report's summary of \(section.citation.id) is not \(section.location)'s")
            }
        }
    }

    @Test func decisionTableListsTheStepsOfEachDecision() throws {
        try DocsSection(name: "decision-checks", file: "docs/decisions.md").check(
            Citations.decisionTable(try SuitesBundle.load()))
    }

    /// The cited-id parser reads every form the suites and rules use.
    @Test func citationsAreReadFromSpecLines() {
        func ids(_ text: String) -> [String] { SpecCitation.citations(in: text).map(\.id) }
        #expect(ids("flow step 3; API M6 [D5]") == ["3-logout", "M6", "D5"])
        #expect(ids("flow steps 1-2; API M4") == ["1-registration", "2-login", "M4"])
        #expect(ids("flow, primary devices; API B8, §11.6 [D7]") == ["6-primary", "B8", "D7"])
        #expect(ids("no user call (M4–M10, M14)") == ["M4", "M5", "M6", "M7", "M8", "M9", "M10", "M14"])
        #expect(ids("calls (B1–B4) carry AppCode; E400 and 48013 are no ids") == ["B1", "B2", "B3", "B4"])
        #expect(ids("flow step 99; API M4") == ["M4"])
    }
}

/// The documents' sections: `<a id="ANCHOR"></a>`, `## ID: title`, a blank line, a one-paragraph summary.
enum ShippedDocs {
    static let files = ["docs/flow.md", "docs/protocol.md", "docs/decisions.md"]

    struct Section {
        var citation: SpecCitation
        var anchor: String
        var title: String
        var summary: String
        var location: String
    }

    static func text(_ file: String) throws -> String {
        try String(contentsOf: TestPaths.root.appendingPathComponent(file), encoding: .utf8)
    }

    static func sections() throws -> [Section] {
        var out: [Section] = []
        for file in files {
            let lines = try text(file).components(separatedBy: "\n")
            for (i, line) in lines.enumerated() {
                guard let anchor = line.wholeMatch(of: #/<a id="([^"]+)"></a>/#)?.output.1, i + 1 < lines.count,
                    let heading = lines[i + 1].wholeMatch(of: #/## ([^:]+): (.+)/#)
                else { continue }
                var summary: [String] = []
                var j = i + 3
                while j < lines.count, !lines[j].isEmpty {
                    summary.append(lines[j])
                    j += 1
                }
                let id = String(heading.output.1)
                out.append(
                    Section(
                        citation: SpecCitation(id: id, kind: SpecCitation.kind(of: id)), anchor: String(anchor),
                        title: String(heading.output.2), summary: summary.joined(separator: " "),
                        location: "\(file):\(i + 2)"))
            }
        }
        return out
    }
}

/// Who cites what: the bundled suites, the flow checker's rules and endpoints, the reference's route table.
struct Citations {
    struct Cite {
        var citation: SpecCitation
        var by: String
    }

    var all: [Cite] = []

    /// Every spec of a suite (its own and its steps'), with where it is.
    static func specs(of suite: Suite) -> [(String, SpecReference)] {
        var out: [(String, SpecReference)] = [("\(suite.file) (suite \(suite.id))", suite.spec)]
        for flow in suite.flows {
            for step in flow.steps where !step.spec.isEmpty {
                out.append(("\(suite.file):\(step.mark.line)", step.spec))
            }
        }
        return out
    }

    static func collect() throws -> Citations {
        var c = Citations()
        func add(_ citations: [SpecCitation], _ by: String) {
            c.all += citations.map { Cite(citation: $0, by: by) }
        }
        for suite in try SuitesBundle.load() {
            add([SpecCitation(id: suite.step, kind: .flowStep)], "\(suite.file) (step:)")
            for (by, spec) in specs(of: suite) { add(SpecCitation.citations(in: spec), by) }
            for flow in suite.flows {
                for step in flow.steps {
                    guard case .exchange(let exchange) = step.action else { continue }
                    add(
                        exchange.checks.compactMap { $0.decision.map { SpecCitation(id: $0, kind: .decision) } },
                        "\(suite.file):\(step.mark.line) (assume)")
                }
            }
        }
        for rule in MobileMessaging.flowRules {
            add([SpecCitation(id: rule.step.name, kind: .flowStep)], "flow rule \(rule.id)")
            add(SpecCitation.citations(in: rule.summary + " " + rule.help), "flow rule \(rule.id)")
        }
        add(ReferenceEndpoint.all.map { SpecCitation(id: $0.id, kind: .endpoint) }, "the reference's route table")
        // The inbox is no part of the certified flow, but the flow checker names it in its findings.
        let inbox = HTTPRequest(method: .get, url: "https://mobile.example/mobile/1/user/u/inbox/gcm/messages")
        if let id = ProtocolProfile.mobileMessaging.endpoints.classify(inbox)?.id {
            add([SpecCitation(id: id, kind: .endpoint)], "the flow checker")
        }
        return c
    }

    /// Per decision, the steps with an `assume:` check for it and the steps whose spec cites it.
    static func decisionTable(_ suites: [Suite]) -> String {
        var assumed: [String: [EndpointCoverage.StepRef]] = [:]
        var cited: [String: [EndpointCoverage.StepRef]] = [:]
        var decisions: Set<String> = []
        for suite in suites {
            for flow in suite.flows {
                for (index, step) in flow.steps.enumerated() {
                    let ref = EndpointCoverage.StepRef(
                        suite: suite.id, file: suite.file, flow: flow.name, number: index + 1, line: step.mark.line,
                        expectsSuccess: false, checksJSON: false)
                    let byStep = SpecCitation.citations(in: step.spec).filter { $0.kind == .decision }.map(\.id)
                    for id in byStep { cited[id, default: []].append(ref) }
                    guard case .exchange(let exchange) = step.action else { continue }
                    var seen: Set<String> = []
                    for id in exchange.checks.compactMap(\.decision) where seen.insert(id).inserted {
                        assumed[id, default: []].append(ref)
                    }
                }
            }
            decisions.formUnion(SpecCitation.citations(in: suite.spec).filter { $0.kind == .decision }.map(\.id))
        }
        decisions.formUnion(assumed.keys)
        decisions.formUnion(cited.keys)
        var out = "| decision | assumed checks | cited by |\n|---|---|---|\n"
        let ordered = decisions.map { SpecCitation(id: $0, kind: .decision) }.sorted()
        for decision in ordered {
            let id = decision.id
            out +=
                "| [\(id)](#\(decision.anchor)) | \(EndpointCoverage.cell(assumed[id] ?? [])) | \(EndpointCoverage.cell(cited[id] ?? [])) |\n"
        }
        return out
    }
}
