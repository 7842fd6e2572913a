import ConformCore
import Foundation

/// The page's references: decision, endpoint and flow-step ids linked to an appendix that summarises each one
/// cited and names the section of the shipped documents that describes it, so the page explains itself far from a
/// checkout.
extension HTMLReporter {
    /// A spec line as HTML, each id it cites linked to its entry in the appendix.
    static func linkedSpec(_ text: String) -> String {
        var out = ""
        var rest = text.startIndex
        for mention in SpecCitation.mentions(in: text) {
            out += Escaping.html(String(text[rest..<mention.range.lowerBound]))
            let words = Escaping.html(String(text[mention.range]))
            if let first = mention.citations.first {
                out += "<a class=\"ref\" href=\"#\(referenceAnchor(first))\">\(words)</a>"
            } else {
                out += words
            }
            rest = mention.range.upperBound
        }
        return out + Escaping.html(String(text[rest...]))
    }

    /// A suite's flow step as HTML, linked to its entry when the documents describe it.
    static func linkedFlowStep(_ name: String) -> String {
        guard let step = SpecCitation.flowStep(named: name) else { return Escaping.html(name) }
        return "<a class=\"ref\" href=\"#\(referenceAnchor(step))\">\(Escaping.html(name))</a>"
    }

    /// The anchor of a citation's entry in the appendix: `ref-d7`, `ref-m4`, `ref-flow-3-logout`.
    static func referenceAnchor(_ citation: SpecCitation) -> String {
        "ref-" + (citation.kind == .flowStep ? "flow-" : "") + slug(citation.anchor)
    }

    /// Every id the result cites: suites' flow steps and specs, steps' specs and the decisions of failed checks.
    static func citations(in result: RunResult) -> [SpecCitation] {
        var found: Set<SpecCitation> = []
        for suite in result.suites {
            if let step = SpecCitation.flowStep(named: suite.group.step) { found.insert(step) }
            found.formUnion(SpecCitation.citations(in: suite.group.spec))
            for step in suite.steps {
                found.formUnion(SpecCitation.citations(in: step.spec))
                for failure in step.failures {
                    if let id = failure.decision { found.insert(SpecCitation(id: id, kind: .decision)) }
                }
            }
        }
        return found.sorted()
    }

    /// The appendix: one entry per id the page cites, with its summary and its section in the shipped documents.
    func referencesAppendix(_ result: RunResult) -> String {
        let cited = Self.citations(in: result)
        guard !cited.isEmpty else { return "" }
        var out = "<section class=\"references\" id=\"references\" aria-labelledby=\"references-title\">\n"
        out += "<h2 id=\"references-title\">References cited in this report</h2>\n"
        out +=
            "<p class=\"muted\">Each entry summarises a flow step, an API endpoint or a decision this report cites and names the section of the document that describes it in full. The documents ship with Conform: <code>docs/</code> in its source tree, <code>/usr/share/doc/conform/docs/</code> when installed from the package.</p>\n"
        let groups: [(SpecCitation.Kind, String)] = [
            (.flowStep, "Flow steps"), (.endpoint, "API endpoints"), (.decision, "Decisions"),
        ]
        for (kind, title) in groups {
            let entries = cited.filter { $0.kind == kind }
            guard !entries.isEmpty else { continue }
            out += "<h3>\(title)</h3>\n<dl class=\"reference-list\">\n"
            for citation in entries { out += referenceEntry(citation) }
            out += "</dl>\n"
        }
        out += "</section>\n"
        return out
    }

    func referenceEntry(_ citation: SpecCitation) -> String {
        let id = Escaping.html(citation.id)
        var out = "<div id=\"\(Self.referenceAnchor(citation))\">"
        guard let documented = citation.documented else {
            out += "<dt><code>\(id)</code></dt>"
            out += "<dd class=\"muted\">Not described in the documents shipped with this version of Conform.</dd>"
            return out + "</div>\n"
        }
        out += "<dt><code>\(id)</code> \(Self.inlineCode(documented.title))</dt>"
        out += "<dd><p>\(Self.inlineCode(documented.summary))</p>"
        out += "<p class=\"ref-section\">Described in <code>\(Escaping.html(citation.section))</code></p></dd>"
        return out + "</div>\n"
    }

    /// Escaped text with `` `code` `` spans as `<code>`.
    static func inlineCode(_ text: String) -> String {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().map { i, part in
            i % 2 == 1 ? "<code>\(Escaping.html(String(part)))</code>" : Escaping.html(String(part))
        }.joined()
    }

    static let referencesCSS = """
        a.ref { text-decoration: underline dotted; }
        .references dl { margin: 8px 0 16px; }
        .references dl > div { padding: 8px 0; border-top: 1px solid var(--line); }
        .references dl > div:target { background: #fff8c5; }
        .references dt { font-weight: 600; }
        .references dd { margin: 4px 0 0 24px; }
        .references dd p { margin: 0 0 4px; }
        .ref-section { font-size: 13px; color: var(--muted); }

        """
}

extension SpecCitation {
    /// A section of the shipped documents: its title and its one-paragraph summary.
    public struct Documented: Sendable, Hashable {
        public var title: String
        public var summary: String

        public init(title: String, summary: String) {
            self.title = title
            self.summary = summary
        }
    }

    /// The section that describes this id, if the shipped documents have one.
    public var documented: Documented? { Self.documentedSections[self] }

    /// Every documented section, read from `documentedText` (generated from the documents).
    public static let documentedSections: [SpecCitation: Documented] = parse(documentedText)

    /// Parses records of two lines, `ID | title` and the summary, separated by blank lines.
    static func parse(_ text: String) -> [SpecCitation: Documented] {
        var out: [SpecCitation: Documented] = [:]
        for record in text.components(separatedBy: "\n\n") {
            let lines = record.split(separator: "\n", omittingEmptySubsequences: true)
            guard lines.count == 2, let bar = lines[0].range(of: " | ") else { continue }
            let id = String(lines[0][..<bar.lowerBound])
            out[SpecCitation(id: id, kind: kind(of: id))] = Documented(
                title: String(lines[0][bar.upperBound...]), summary: String(lines[1]))
        }
        return out
    }

    /// `D7` is a decision, `M4` and `B5` endpoints, anything else a flow step.
    public static func kind(of id: String) -> Kind {
        guard let first = id.first, id.count > 1, id.dropFirst().allSatisfy(\.isNumber) else { return .flowStep }
        return first == "D" ? .decision : (first == "M" || first == "B") ? .endpoint : .flowStep
    }
}
