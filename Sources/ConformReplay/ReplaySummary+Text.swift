import ConformReport
import Foundation

extension ReplaySummary {
    /// The replay's line, counted from its steps as its result counts them (`counts`), and what it did beyond its
    /// steps: the shard, fresh identities, why exchanges could not be judged, the pace.
    public func text(counts: [Verdict: Int], target: String, options: ReplayOptions) -> String {
        let summary = self
        let (matched, differed) = (counts[.pass, default: 0], counts[.fail, default: 0])
        let (noResponse, cannotJudge) = (counts[.error, default: 0], counts[.skipped, default: 0])
        let unjudged =
            (cannotJudge > 0 ? ", \(cannotJudge) could not be judged" : "")
            + (summary.unreadable > 0
                ? ", \(summary.unreadable) unreadable record\(summary.unreadable == 1 ? "" : "s") skipped" : "")
        let total = matched + differed + noResponse + cannotJudge
        var out =
            "Replayed \(Noun("exchange").counted(total)) against \(target): \(matched) matched, "
            + "\(differed) differed, \(noResponse) got no response\(unjudged)\n"
        if let partition = options.partition {
            out +=
                "Shard \(partition.shard): \(partition.ownedGroupCount) of \(partition.groupCount) groups of devices "
                + "sharing a person\n"
        }
        if let fresh = options.freshIdentities { out += "Fresh identities: prefix \(fresh.prefix)\n" }
        if summary.redactedTokens > 0 {
            out +=
                "\(Noun("exchange").counted(summary.redactedTokens)) could not be judged: "
                + "\(RedactedToken.cannotReplay)\n"
        }
        if summary.refusedTokens > 0 {
            out +=
                "\(Noun("exchange").counted(summary.refusedTokens)) could not be judged: the recording shows the "
                + "target refused their redacted token, and whether its signature was valid was redacted with it\n"
        }
        if summary.leftoverState > 0 {
            out +=
                "\(Noun("exchange").counted(summary.leftoverState)) differed as if an earlier replay had left its "
                + "persons on the target\nhelp: replay with --fresh-identities\n"
        }
        if options.pace != .max { out += ReplayPaceText.lines(summary.timing, pace: options.pace) }
        return out
    }
}

/// The lines a paced replay adds to its summary: the pace asked and reached, latencies, lag behind the schedule.
public enum ReplayPaceText {
    public static func lines(_ timing: ReplayTiming, pace: ReplayPace) -> String {
        let asked: String
        switch pace {
        case .speed(let factor): asked = "the recorded pace ×\(number(factor))"
        case .rate(let perSecond): asked = "\(number(perSecond))/s"
        case .max: asked = "as fast as possible"
        }
        let l = timing.latency, lag = timing.lag
        return """
            Pace: \(asked); reached \(number(timing.achievedRate))/s (\(l.count) exchanges in \(String(format: "%.2f", timing.elapsed)) s)
            Latency: p50 \(ms(l.percentile(0.5))), p90 \(ms(l.percentile(0.9))), p99 \(ms(l.percentile(0.99))), max \(ms(l.maximum))
            Behind schedule: p50 \(ms(lag.percentile(0.5))), p99 \(ms(lag.percentile(0.99))), at most \(ms(lag.maximum))

            """
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

    static func number(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e9 { return String(Int(value)) }
        return value >= 100 ? String(format: "%.0f", value) : String(format: "%.3g", value)
    }
}
