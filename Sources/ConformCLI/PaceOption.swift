import ConformReplay
import ConformReport

/// `--speed X|max` and `--rate N/s`: how fast `conform replay` sends.
enum PaceOption {
    static let speeds = 0.001...10_000.0
    static let rates = 0.001...1_000_000.0

    /// The pace from the two options (at most one of them); `.max` when neither is given.
    static func parse(speed: String?, rate: String?, subcommand: String) throws(UsageError) -> ReplayPace {
        switch (speed, rate) {
        case (nil, nil): return .max
        case (.some, .some):
            throw UsageError(
                message: "--speed and --rate cannot be used together: pick the recorded pace or a fixed rate",
                subcommand: subcommand)
        case (let text?, nil):
            if text == "max" { return .max }
            return .speed(
                try number(
                    text, in: speeds,
                    "--speed takes 'max' or a factor from \(speeds.lowerBound) to \(Int(speeds.upperBound)) (0.5: half the recorded pace)",
                    subcommand: subcommand))
        case (nil, let text?):
            return .rate(
                try number(
                    text.hasSuffix("/s") ? String(text.dropLast(2)) : text, in: rates,
                    "--rate takes exchanges per second as N/s, from \(rates.lowerBound) to \(Int(rates.upperBound)), e.g. 200/s",
                    subcommand: subcommand, shown: text))
        }
    }

    /// `text` as a number within `range`, or a usage error made of `help` and the value as typed.
    private static func number(
        _ text: String, in range: ClosedRange<Double>, _ help: String, subcommand: String, shown: String? = nil
    ) throws(UsageError) -> Double {
        guard let value = number(text), range.contains(value) else {
            throw UsageError(
                message: "\(help); got '\(Shard.printable(shown ?? text))'", subcommand: subcommand)
        }
        return value
    }

    /// A plain decimal number (digits with at most one point; no sign, exponent, spaces, `nan` or `inf`).
    private static func number(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard (1...16).contains(bytes.count), bytes.filter({ $0 == UInt8(ascii: ".") }).count <= 1,
            bytes.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") }),
            bytes.contains(where: { $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        return Double(text)
    }
}
