import Foundation

/// A compiled regular expression shared between threads (`NSRegularExpression` is immutable once built), or a
/// hand-written linear finder where a regular expression would backtrack on hostile input.
struct TextPattern: @unchecked Sendable {
    let regex: NSRegularExpression
    private let finder: (@Sendable (String) -> [Range<String.Index>])?

    init(_ pattern: String, caseInsensitive: Bool = false) throws {
        regex = try NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
        finder = nil
    }

    /// A pattern whose matches come from `finder`; `pattern` documents what it finds (and serves `captures`).
    init(_ pattern: String, finder: @escaping @Sendable (String) -> [Range<String.Index>]) throws {
        regex = try NSRegularExpression(pattern: pattern)
        self.finder = finder
    }

    /// Matches as Swift ranges, in order.
    func matches(in text: String) -> [Range<String.Index>] {
        if let finder { return finder(text) }
        let ns = NSRange(text.startIndex..<text.endIndex, in: text)
        return regex.matches(in: text, range: ns).compactMap { Range($0.range, in: text) }
    }

    /// Capture group `group` of every match (nil ranges skipped).
    func captures(in text: String, group: Int) -> [Range<String.Index>] {
        let ns = NSRange(text.startIndex..<text.endIndex, in: text)
        return regex.matches(in: text, range: ns).compactMap { match in
            guard group < match.numberOfRanges, match.range(at: group).location != NSNotFound else { return nil }
            return Range(match.range(at: group), in: text)
        }
    }

    /// Replaces every match by `transform(match)`; `nil` keeps the match.
    func replacing(in text: String, _ transform: (Substring) -> String?) -> String {
        let ranges = matches(in: text)
        guard !ranges.isEmpty else { return text }
        var out = ""
        var cursor = text.startIndex
        for range in ranges {
            out += text[cursor..<range.lowerBound]
            out += transform(text[range]) ?? String(text[range])
            cursor = range.upperBound
        }
        out += text[cursor...]
        return out
    }

    static let email = try! TextPattern(
        "[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}", finder: LinearFinder.emails(in:))
    /// `+385911234567`, also written in groups (`+385 91 123 4567`, `+1-202-555-0142`) or URL-encoded (`%2B385…`).
    static let internationalPhone = try! TextPattern(
        "(?<![A-Za-z0-9+_%])(?:\\+|%2[Bb])[1-9](?:[ -]?[0-9]){7,14}(?![0-9])")
    static let jwt = try! TextPattern(
        "eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*", finder: LinearFinder.jwts(in:))
}
