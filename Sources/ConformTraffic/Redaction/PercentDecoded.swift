import Foundation

/// Text as a URL or a form carries it (`user%40example.com`, encoded twice `user%2540example.com`), decoded so
/// that redaction and the secret scan see what it says, with where each decoded byte came from, so that what is
/// found there is replaced in the text's own form.
///
/// Decoding is linear in the text at each of at most ``maxDepth`` levels; a `+` is kept as it is (a form's space,
/// but also a character of an email's local part, which a pseudonym replaces whole).
struct PercentDecoded {
    /// How many times a text is decoded at most: enough for a value encoded into a URL that is itself encoded.
    static let maxDepth = 3

    /// The decoded text.
    let text: String
    /// For each byte of ``text``, the range of the original's bytes it comes from.
    private let starts: [Int]
    private let ends: [Int]

    /// `original` decoded, or `nil` when it holds no escape, or decodes to bytes that are not UTF-8.
    init?(_ original: String) {
        var bytes = Array(original.utf8)
        guard bytes.contains(UInt8(ascii: "%")) else { return nil }
        var starts = Array(0..<bytes.count)
        var ends = (0..<bytes.count).map { $0 + 1 }
        var depth = 0
        while depth < Self.maxDepth, let level = Self.decodeOnce(bytes) {
            // Compose: a byte decoded from bytes i..<j of this level comes from starts[i]..<ends[j-1] of the original.
            starts = level.origins.map { starts[$0.lowerBound] }
            ends = level.origins.map { ends[$0.upperBound - 1] }
            bytes = level.bytes
            depth += 1
        }
        guard depth > 0, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        self.text = text
        self.starts = starts
        self.ends = ends
    }

    /// One level of percent-decoding, with the source range of each output byte; `nil` when nothing decodes.
    static func decodeOnce(_ bytes: [UInt8]) -> (bytes: [UInt8], origins: [Range<Int>])? {
        var out: [UInt8] = []
        var origins: [Range<Int>] = []
        out.reserveCapacity(bytes.count)
        origins.reserveCapacity(bytes.count)
        var i = 0
        var decoded = false
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let high = hex(bytes[i + 1]),
                let low = hex(bytes[i + 2])
            {
                out.append(high << 4 | low)
                origins.append(i..<i + 3)
                i += 3
                decoded = true
            } else {
                out.append(bytes[i])
                origins.append(i..<i + 1)
                i += 1
            }
        }
        return decoded ? (out, origins) : nil
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }

    /// The matches of `finders` in ``text`` that the original wrote encoded, each with what replaces it, settled
    /// where they overlap (the earliest first, then the first finder): what ``replacing(_:in:)`` takes.
    func edits(
        _ finders: [(matches: [Range<String.Index>], replacement: (Substring) -> String?)], in original: String
    ) -> [(range: Range<String.Index>, replacement: String)] {
        var candidates: [(range: Range<String.Index>, rank: Int, finder: Int)] = []
        for (f, finder) in finders.enumerated() {
            for range in finder.matches { candidates.append((range, candidates.count, f)) }
        }
        candidates.sort { ($0.range.lowerBound, $0.rank) < ($1.range.lowerBound, $1.rank) }
        let source = Array(original.utf8)
        var out: [(range: Range<String.Index>, replacement: String)] = []
        var keptEnd = text.startIndex
        for candidate in candidates where out.isEmpty || candidate.range.lowerBound >= keptEnd {
            guard let written = writtenBytes(candidate.range, source), written.contains(UInt8(ascii: "%")),
                let new = finders[candidate.finder].replacement(text[candidate.range])
            else { continue }
            out.append((candidate.range, new))
            keptEnd = candidate.range.upperBound
        }
        return out
    }

    /// The original's bytes a range of ``text`` was decoded from.
    private func writtenBytes(_ range: Range<String.Index>, _ source: [UInt8]) -> ArraySlice<UInt8>? {
        writtenRange(range).map { source[$0] }
    }

    /// The original's byte offsets a range of ``text`` was decoded from.
    func writtenRange(_ range: Range<String.Index>) -> Range<Int>? {
        let view = text.utf8
        let lower = view.distance(from: view.startIndex, to: range.lowerBound)
        let upper = view.distance(from: view.startIndex, to: range.upperBound)
        guard upper > lower else { return nil }
        return starts[lower]..<ends[upper - 1]
    }

    /// `original` with each edit's range (of ``text``, in order, not overlapping) replaced by its replacement,
    /// written as the original wrote that part: encoded as many times as it was.
    func replacing(_ edits: [(range: Range<String.Index>, replacement: String)], in original: String) -> String {
        guard !edits.isEmpty else { return original }
        let source = Array(original.utf8)
        var out: [UInt8] = []
        var copied = 0
        for edit in edits {
            guard let written = writtenRange(edit.range), written.lowerBound >= copied else { continue }
            out += source[copied..<written.lowerBound]
            out += Self.encode(edit.replacement, depth: Self.depth(Array(source[written]))).utf8
            copied = written.upperBound
        }
        out += source[copied...]
        return String(decoding: out, as: UTF8.self)
    }

    /// How many times `bytes` decode before nothing changes (at most ``maxDepth``).
    static func depth(_ bytes: [UInt8]) -> Int {
        var bytes = bytes
        var depth = 0
        while depth < maxDepth, let level = decodeOnce(bytes) {
            bytes = level.bytes
            depth += 1
        }
        return depth
    }

    /// `text` percent-encoded `depth` times: once for every byte but the unreserved ones (RFC 3986), then each
    /// `%` again.
    static func encode(_ text: String, depth: Int) -> String {
        guard depth > 0 else { return text }
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in text.utf8 {
            let unreserved =
                (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || (0x30...0x39).contains(b)
                || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
            if unreserved {
                out.append(b)
            } else {
                out += [UInt8(ascii: "%"), digits[Int(b >> 4)], digits[Int(b & 0xF)]]
            }
        }
        var encoded = String(decoding: out, as: UTF8.self)
        for _ in 1..<depth { encoded = encoded.replacingOccurrences(of: "%", with: "%25") }
        return encoded
    }
}
