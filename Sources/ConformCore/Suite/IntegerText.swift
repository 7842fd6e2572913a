import Foundation

/// Integers as suites, templates and the command line write them, always within a range.
///
/// `Int("99999999999999999999")` is `nil` and `Int(1e300)` traps: every integer from outside passes through
/// here instead, so none wraps, traps or silently becomes a default.
public enum IntegerText {
    /// The integer `text` names (an optional sign, then decimal digits), or `nil` when it is not one or lies
    /// outside `range`.
    public static func parse(_ text: String, in range: ClosedRange<Int>) -> Int? {
        let s = text.trimmingCharacters(in: .whitespaces)
        guard let n = Int(s) else { return nil }
        return range.contains(n) ? n : nil
    }

    /// A size such as `64MB`, `512KB`, `1GB` (powers of 1024) or a plain number of bytes, or `nil` when it is
    /// not one or lies outside `range`.
    public static func byteCount(_ text: String, in range: ClosedRange<Int>) -> Int? {
        let s = text.trimmingCharacters(in: .whitespaces).uppercased()
        for (suffix, factor) in [("KB", 1 << 10), ("MB", 1 << 20), ("GB", 1 << 30), ("B", 1)] where s.hasSuffix(suffix)
        {
            guard let n = parse(String(s.dropLast(suffix.count)), in: 0...(range.upperBound / factor)) else {
                return nil
            }
            return range.contains(n * factor) ? n * factor : nil
        }
        return parse(s, in: range)
    }

    /// A number read from JSON or YAML as an integer in `range`: `nil` for fractions, infinities, NaN and
    /// values outside `range`.
    public static func exactly(_ number: Double, in range: ClosedRange<Int>) -> Int? {
        guard number.isFinite, number >= Double(range.lowerBound), number <= Double(range.upperBound),
            let n = Int(exactly: number)
        else { return nil }
        return range.contains(n) ? n : nil
    }
}
