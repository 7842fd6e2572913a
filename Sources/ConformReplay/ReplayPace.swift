import ConformTraffic
import Foundation

/// How fast a replay sends: as fast as it can, at the recorded pace scaled, or at a fixed rate.
public enum ReplayPace: Sendable, Hashable {
    /// Each exchange as soon as its flow and the bound on work in flight allow (`--speed max`).
    case max
    /// The recorded gaps between exchanges divided by the factor: 2 replays twice as fast, 0.5 at half speed.
    case speed(Double)
    /// A fixed number of exchanges per second, whatever the recording's pace.
    case rate(Double)

    /// When the `index`-th exchange sent (0-based) is due, in seconds after the replay began, given its recorded
    /// offset from the recording's first exchange; `nil` for no schedule.
    func due(index: Int, recordedOffset: Double) -> Double? {
        switch self {
        case .max: nil
        case .speed(let factor): Swift.max(0, recordedOffset) / factor
        case .rate(let perSecond): Double(index) / perSecond
        }
    }
}

/// A log-scaled histogram of durations (5% buckets from 1 µs to hours), for percentiles in bounded memory.
public struct DurationHistogram: Sendable, Hashable {
    static let ratio = 1.05
    static let bucketCount = 512
    private var buckets = [Int](repeating: 0, count: bucketCount)
    public private(set) var count = 0
    /// The largest value recorded, in seconds.
    public private(set) var maximum = 0.0

    public init() {}

    /// Records `seconds` (negative values count as zero).
    public mutating func record(_ seconds: Double) {
        let value = Swift.max(0, seconds.isFinite ? seconds : 0)
        let micros = Swift.max(1, value * 1_000_000)
        let index = Swift.min(Self.bucketCount - 1, Int(log(micros) / log(Self.ratio)))
        buckets[index] += 1
        count += 1
        maximum = Swift.max(maximum, value)
    }

    /// The value below which `fraction` (0...1) of the recorded values fall, to within 5%; 0 when empty.
    public func percentile(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (index, n) in buckets.enumerated() where n > 0 {
            seen += n
            if seen >= rank { return Swift.min(maximum, pow(Self.ratio, Double(index + 1)) / 1_000_000) }
        }
        return maximum
    }
}

/// How a replay kept its pace: latencies, the rate it reached, how far it fell behind its schedule.
public struct ReplayTiming: Sendable, Hashable {
    /// Time from sending each request to its response (or transport failure).
    public var latency = DurationHistogram()
    /// How late each exchange went out against its schedule (empty without one).
    public var lag = DurationHistogram()
    /// Seconds from the first request sent to the last response.
    public var elapsed = 0.0

    public init() {}

    /// Exchanges per second over the replay.
    public var achievedRate: Double { elapsed > 0 ? Double(latency.count) / elapsed : 0 }
}

/// An exchange with the instant it is due to be sent, if the replay keeps a schedule.
struct Scheduled: Sendable {
    var exchange: RecordedExchange
    var due: ContinuousClock.Instant?
}
