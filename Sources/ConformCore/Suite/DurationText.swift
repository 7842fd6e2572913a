import Foundation

/// Durations as suites and the command line write them: `5s`, `200ms`, `1m`, or a number of seconds.
///
/// Every duration from outside passes through here, so none can be negative, infinite, NaN or large enough to
/// overflow a clock: values outside `range` are refused, never clamped.
public enum DurationText {
    /// What a duration may be unless a caller narrows it: from nothing to one day.
    public static let range: ClosedRange<Duration> = .zero ... .seconds(86_400)

    /// The duration `text` names, or `nil` when it is not a duration or lies outside `range`.
    public static func parse(_ text: String, in range: ClosedRange<Duration> = DurationText.range) -> Duration? {
        let s = text.trimmingCharacters(in: .whitespaces)
        let units: [(suffix: String, millis: Double)] = [("ms", 1), ("s", 1000), ("m", 60_000)]
        for unit in units where s.hasSuffix(unit.suffix) {
            let number = s.dropLast(unit.suffix.count).trimmingCharacters(in: .whitespaces)
            return milliseconds(Double(number), factor: unit.millis, in: range)
        }
        return milliseconds(Double(s), factor: 1000, in: range)
    }

    /// `seconds` as a duration, or `nil` when it is not finite or lies outside `range`.
    public static func seconds(_ seconds: Double, in range: ClosedRange<Duration> = DurationText.range) -> Duration? {
        milliseconds(seconds, factor: 1000, in: range)
    }

    private static func milliseconds(_ n: Double?, factor: Double, in range: ClosedRange<Duration>) -> Duration? {
        guard let n, n.isFinite, n >= 0 else { return nil }
        let millis = n * factor
        // Compare as doubles first: converting a huge value to Int would trap.
        let upper = Double(range.upperBound.components.seconds) * 1000
        guard millis <= upper else { return nil }
        let d = Duration.milliseconds(Int(millis.rounded()))
        return range.contains(d) ? d : nil
    }

    /// `from 1ms to 24h`: how messages name a range of durations.
    public static func describe(_ range: ClosedRange<Duration>) -> String {
        "from \(format(range.lowerBound)) to \(format(range.upperBound))"
    }

    /// `5s`, `200ms`, `1.5s`: the way reports and messages write a duration.
    public static func format(_ d: Duration) -> String {
        let ms = d.wholeMilliseconds
        if ms == 86_400_000 { return "24h" }
        if ms % 1000 == 0 { return "\(ms / 1000)s" }
        if ms < 1000 { return "\(ms)ms" }
        return "\(Double(ms) / 1000)s"
    }
}
