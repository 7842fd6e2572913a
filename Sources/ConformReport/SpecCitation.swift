import ConformCore
import Foundation

/// An id a suite's `spec:` cites, with the section of the shipped documents that describes it: a decision (`D7`,
/// `docs/decisions.md#d7`), an endpoint (`M4`, `docs/protocol.md#m4`) or a flow step (`3-logout`,
/// `docs/flow.md#3-logout`).
public struct SpecCitation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// What an id names.
    public enum Kind: Int, Sendable, Hashable, Comparable {
        case flowStep, endpoint, decision
        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    /// `D7`, `M4`, `B5`, or a flow step's name such as `3-logout`.
    public var id: String
    public var kind: Kind

    public init(id: String, kind: Kind) {
        self.id = id
        self.kind = kind
    }

    public var description: String { id }

    /// The shipped document that describes this kind of id, relative to the repository (or `/usr/share/doc/conform`).
    public var document: String {
        switch kind {
        case .decision: "docs/decisions.md"
        case .endpoint: "docs/protocol.md"
        case .flowStep: "docs/flow.md"
        }
    }

    /// The section's anchor in `document`: the id in lower case.
    public var anchor: String { id.lowercased() }

    /// `docs/decisions.md#d7`.
    public var section: String { document + "#" + anchor }

    /// Flow steps in flow order, then endpoints (mobile before backend) and decisions, each by number.
    public static func < (a: SpecCitation, b: SpecCitation) -> Bool {
        if a.kind != b.kind { return a.kind < b.kind }
        let (pa, na) = a.sortKey, (pb, nb) = b.sortKey
        return (pa, na, a.id) < (pb, nb, b.id)
    }

    private var sortKey: (Int, Int) {
        let digits = kind == .flowStep ? id.prefix { $0.isNumber } : id.dropFirst()
        return (id.hasPrefix("B") ? 1 : 0, Int(digits) ?? Int.max)
    }
}

extension SpecCitation {
    /// Every id `text` cites, in order of appearance, each once: `D2`, `M4`, ranges such as `M4–M10`, and flow
    /// steps named as `flow step 3`, `flow steps 1-2` or by the guide's wording (`primary devices`).
    public static func citations(in text: String) -> [SpecCitation] {
        var out: [SpecCitation] = []
        for match in mentions(in: text) {
            for citation in match.citations where !out.contains(citation) { out.append(citation) }
        }
        return out
    }

    /// Every id a suite's or step's spec cites: its section's and its decisions.
    public static func citations(in spec: SpecReference) -> [SpecCitation] {
        var out = citations(in: spec.section)
        for id in spec.decisions {
            let citation = SpecCitation(id: id, kind: .decision)
            if !out.contains(citation) { out.append(citation) }
        }
        return out
    }

    /// The flow step a suite's `step:` names, when the shipped documents describe it.
    public static func flowStep(named name: String) -> SpecCitation? {
        let citation = SpecCitation(id: name, kind: .flowStep)
        return citation.documented == nil ? nil : citation
    }

    /// One place in a text that cites something: its range and what it cites.
    struct Mention {
        var range: Range<String.Index>
        var citations: [SpecCitation]
    }

    /// Phrases of the guide that name a step without its number.
    static let stepPhrases: [(phrase: String, number: Int)] = [
        ("person with multiple devices", 5), ("primary devices", 6), ("backend-only variant", 7),
    ]

    // The three forms, longest first: a flow step by number, a phrase of the guide, an id (or a range of ids).
    nonisolated(unsafe) static let pattern: Regex<AnyRegexOutput> = {
        let phrases = stepPhrases.map { NSRegularExpression.escapedPattern(for: $0.phrase) }.joined(separator: "|")
        return try! Regex(
            #"flow steps? (\d+)(?:\s*[-–]\s*(\d+))?|"# + phrases + #"|\b([DMB])(\d+)(?:\s*[–-]\s*([DMB])(\d+))?\b"#)
    }()

    static func mentions(in text: String) -> [Mention] {
        text.matches(of: pattern).compactMap { match in
            let found = String(text[match.range])
            var citations: [SpecCitation] = []
            if let from = match.output[1].substring.flatMap({ Int($0) }) {
                let to = match.output[2].substring.flatMap { Int($0) } ?? from
                citations = (from...max(from, min(to, from + 20))).compactMap(flowStep(number:))
            } else if let phrase = stepPhrases.first(where: { $0.phrase == found }) {
                citations = flowStep(number: phrase.number).map { [$0] } ?? []
            } else if let letter = match.output[3].substring, let from = match.output[4].substring.flatMap({ Int($0) })
            {
                let kind: Kind = letter == "D" ? .decision : .endpoint
                var to = from
                if let second = match.output[5].substring, second == letter,
                    let n = match.output[6].substring.flatMap({ Int($0) }), n > from, n - from <= 20
                {
                    to = n
                }
                citations = (from...to).map { SpecCitation(id: "\(letter)\($0)", kind: kind) }
            }
            return citations.isEmpty ? nil : Mention(range: match.range, citations: citations)
        }
    }

    /// The documented flow step whose name starts with `number-`.
    static func flowStep(number: Int) -> SpecCitation? {
        let prefix = "\(number)-"
        return documentedFlowSteps.first { $0.id.hasPrefix(prefix) }
    }

    static let documentedFlowSteps: [SpecCitation] = documentedSections.keys.filter { $0.kind == .flowStep }.sorted()
}
