import Foundation

/// Text as a URL or a form carries it (`user%40example.com`, encoded twice `user%2540example.com`), decoded so
/// that redaction and the secret scan see what it says, with where each decoded byte came from, so that what is
/// found there is replaced in the text's own form.
///
/// Decoding is linear in the text at each of at most ``maxDepth`` levels, and keeps only the places of the escapes
/// it decoded (4 bytes each), so its memory is the text's plus a fraction. A `+` is kept as it is (a form's space,
/// but also a character of an email's local part, which a pseudonym replaces whole).
struct PercentDecoded {
    /// How many times a text is decoded at most: enough for a value encoded into a URL that is itself encoded.
    static let maxDepth = 3

    /// The decoded text.
    let text: String
    /// For each level from the original down, the offsets in that level's text of the bytes an escape gave.
    private let escapes: [[Int32]]

    /// `original` decoded, or `nil` when it holds no escape of an ASCII byte.
    init?(_ original: String) {
        var bytes = Array(original.utf8)
        guard bytes.contains(UInt8(ascii: "%")), bytes.count < Int(Int32.max) else { return nil }
        var escapes: [[Int32]] = []
        while escapes.count < Self.maxDepth, let level = Self.decodeOnce(bytes) {
            bytes = level.bytes
            escapes.append(level.escapes)
        }
        guard !escapes.isEmpty, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        self.text = text
        self.escapes = escapes
    }

    /// One level of percent-decoding of the escapes of ASCII bytes (`%00`–`%7F`), with the offsets in the output of
    /// the bytes escapes gave, in order; `nil` when nothing decodes.
    static func decodeOnce(_ bytes: [UInt8]) -> (bytes: [UInt8], escapes: [Int32])? {
        var out: [UInt8] = []
        var escapes: [Int32] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            // Only escapes of ASCII bytes: what redaction looks for is ASCII, and the decoded text stays UTF-8
            // whatever escapes sit beside it (a `%FF` cannot hide an address from the passes).
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let high = hex(bytes[i + 1]), high < 8,
                let low = hex(bytes[i + 2])
            {
                escapes.append(Int32(out.count))
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return escapes.isEmpty ? nil : (out, escapes)
    }

    /// The range of the level above's bytes that bytes `range` of a level whose escapes are `escapes` come from.
    private static func lift(_ range: Range<Int>, _ escapes: [Int32]) -> Range<Int> {
        // How many escapes lie before `offset`: each took two bytes more above.
        func before(_ offset: Int) -> Int {
            var low = 0, high = escapes.count
            while low < high {
                let mid = (low + high) / 2
                if Int(escapes[mid]) < offset { low = mid + 1 } else { high = mid }
            }
            return low
        }
        let last = range.upperBound - 1
        let lastIsEscape = before(last) < escapes.count && Int(escapes[before(last)]) == last
        return (range.lowerBound + 2 * before(range.lowerBound))..<(last + 2 * before(last) + (lastIsEscape ? 3 : 1))
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
        return escapes.reversed().reduce(lower..<upper) { Self.lift($0, $1) }
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

    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    /// `text` percent-encoded `depth` times: once for every byte but the unreserved ones (RFC 3986), then each
    /// `%` again.
    static func encode(_ text: String, depth: Int) -> String {
        guard depth > 0 else { return text }
        let digits = upperHexDigits
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
