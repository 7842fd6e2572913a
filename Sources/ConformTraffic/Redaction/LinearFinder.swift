/// Finders for emails and JWTs that look at each byte a bounded number of times, so a hostile 10 MB line is
/// scanned in linear time (a backtracking regular expression retries from every start: quadratic).
///
/// They find what `[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}` and
/// `eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*` find, leftmost and longest.
enum LinearFinder {
    /// Bytes looked at, summed over calls that pass a counter: what tests assert instead of time.
    struct Work {
        var steps = 0
    }

    static func emails(in text: String) -> [Range<String.Index>] {
        var work = Work()
        return emails(in: text, work: &work)
    }

    static func jwts(in text: String) -> [Range<String.Index>] {
        var work = Work()
        return jwts(in: text, work: &work)
    }

    private static func isLocal(_ b: UInt8) -> Bool {
        isAlnum(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "%")
            || b == UInt8(ascii: "+") || b == UInt8(ascii: "-")
    }

    private static func isAlnum(_ b: UInt8) -> Bool { isAlpha(b) || (0x30...0x39).contains(b) }
    private static func isAlpha(_ b: UInt8) -> Bool { (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) }
    private static func isLabel(_ b: UInt8) -> Bool { isAlnum(b) || b == UInt8(ascii: "-") }
    private static func isBase64URL(_ b: UInt8) -> Bool { isLabel(b) || b == UInt8(ascii: "_") }

    static func emails(in text: String, work: inout Work) -> [Range<String.Index>] {
        let view = text.utf8
        let bytes = Array(view)
        var found: [Range<Int>] = []
        var lastEnd = 0
        var i = 0
        while i < bytes.count {
            work.steps += 1
            guard bytes[i] == UInt8(ascii: "@") else {
                i += 1
                continue
            }
            // The local part stops at any other byte, '@' included, so each byte is walked once from the left.
            var start = i
            while start > lastEnd, isLocal(bytes[start - 1]) {
                start -= 1
                work.steps += 1
            }
            // The domain: the run of label characters and dots after '@' (it stops at the next '@').
            var runEnd = i + 1
            while runEnd < bytes.count, isLabel(bytes[runEnd]) || bytes[runEnd] == UInt8(ascii: ".") {
                runEnd += 1
                work.steps += 1
            }
            if start < i, let end = domainEnd(bytes, from: i + 1, to: runEnd, work: &work) {
                found.append(start..<end)
                lastEnd = end
                i = end
            } else {
                i += 1
            }
        }
        return found.map { indexRange($0, in: view) }
    }

    /// Where the longest valid domain in `bytes[from..<to]` ends: labels joined by single dots, the last one two
    /// or more letters.
    private static func domainEnd(_ bytes: [UInt8], from: Int, to: Int, work: inout Work) -> Int? {
        // Walk labels left to right, remembering the end of the last label that may close the domain.
        var best: Int?
        var labelStart = from
        var position = from
        var labels = 0
        while position <= to {
            work.steps += 1
            if position == to || bytes[position] == UInt8(ascii: ".") {
                guard position > labelStart else { break }  // an empty label ends the domain
                if labels > 0 {
                    // This label may close the domain on its leading letters (two or more).
                    var letters = labelStart
                    while letters < position, isAlpha(bytes[letters]) { letters += 1 }
                    if letters - labelStart >= 2 { best = letters }
                }
                labels += 1
                labelStart = position + 1
            }
            position += 1
        }
        return best
    }

    static func jwts(in text: String, work: inout Work) -> [Range<String.Index>] {
        let view = text.utf8
        let bytes = Array(view)
        // Maximal runs of base64url characters, each with the byte that follows it.
        var runs: [Range<Int>] = []
        var i = 0
        while i < bytes.count {
            work.steps += 1
            if isBase64URL(bytes[i]) {
                let start = i
                while i < bytes.count, isBase64URL(bytes[i]) {
                    i += 1
                    work.steps += 1
                }
                runs.append(start..<i)
            } else {
                i += 1
            }
        }
        func dotAfter(_ run: Range<Int>) -> Bool { run.upperBound < bytes.count && bytes[run.upperBound] == 0x2E }
        func startsWithHeader(_ from: Int, _ run: Range<Int>) -> Bool {
            run.upperBound - from >= 8 && bytes[from] == 0x65 && bytes[from + 1] == 0x79 && bytes[from + 2] == 0x4A
        }
        var found: [Range<Int>] = []
        var r = 0
        while r < runs.count {
            let first = runs[r]
            let second = r + 1 < runs.count ? runs[r + 1] : nil
            guard dotAfter(first), let second, second.lowerBound == first.upperBound + 1,
                startsWithHeader(second.lowerBound, second), dotAfter(second)
            else {
                r += 1
                continue
            }
            // The leftmost "eyJ" in the first run with five or more characters after it.
            var start: Int?
            var p = first.lowerBound
            while p + 8 <= first.upperBound {
                work.steps += 1
                if startsWithHeader(p, first) {
                    start = p
                    break
                }
                p += 1
            }
            guard let start else {
                r += 1
                continue
            }
            var end = second.upperBound + 1
            var next = r + 2
            if next < runs.count, runs[next].lowerBound == end {
                end = runs[next].upperBound
                next += 1
            }
            found.append(start..<end)
            r = next
        }
        return found.map { indexRange($0, in: view) }
    }

    private static func indexRange(_ range: Range<Int>, in view: String.UTF8View) -> Range<String.Index> {
        // Offsets are walked from the start once per match; matches are few next to the bytes scanned.
        let lower = view.index(view.startIndex, offsetBy: range.lowerBound)
        return lower..<view.index(lower, offsetBy: range.count)
    }
}

#if canImport(Glibc)
    import Glibc
#endif

extension String {
    /// Whether `needle`'s UTF-8 bytes occur in the string: a byte search (`memchr` for the first byte, then a
    /// compare), where `contains` would go through Foundation's locale-aware search, the slowest part of scanning
    /// a long line. Needles are short literals, so the work is linear in the string.
    func containsBytes(_ needle: String) -> Bool {
        var haystack = self
        var needle = needle
        return haystack.withUTF8 { hay in
            needle.withUTF8 { pin in
                guard let first = pin.first, let base = hay.baseAddress else { return pin.isEmpty }
                var offset = 0
                while hay.count - offset >= pin.count {
                    guard let found = memchr(base + offset, Int32(first), hay.count - offset - pin.count + 1) else {
                        return false
                    }
                    let at = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + at, pin.baseAddress!, pin.count) == 0 { return true }
                    offset = at + 1
                }
                return false
            }
        }
    }
}
