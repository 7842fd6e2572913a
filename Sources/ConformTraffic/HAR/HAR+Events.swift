import ConformCore
import Foundation

extension HAR {
    /// Conform's app events in a HAR: `log._conformEvents`, each `{seq, event, at, pushRegId?, externalUserId?}`.
    static let eventsKey = "_conformEvents"
    /// The credentials a redacted recording's metadata names, in a HAR exported from it: `log._conformCredentials`,
    /// each `{role, pseudonym}`.
    static let credentialsKey = "_conformCredentials"

    /// App events from `log._conformEvents`, ordered by `seq` (ties keep file order).
    static func appEvents(_ value: JSONValue?, file: String) throws(HARError) -> [AppEvent] {
        guard let value, value != .null else { return [] }
        guard let list = value.arrayValue else {
            throw HARError(
                file: file, path: "$.log.\(eventsKey)", message: "expected an array of app events",
                help: "each app event is {\"seq\": N, \"event\": \"logout\", \"at\": \"…Z\"} (docs/recordings.md)")
        }
        var events: [AppEvent] = []
        for (i, item) in list.enumerated() {
            do {
                events.append(try AppEvent(json: item))
            } catch {
                let path = (error.path ?? "$").replacingOccurrences(of: "$", with: "$.log.\(eventsKey)[\(i)]")
                throw HARError(
                    file: file, path: path, message: error.message,
                    help: "each app event is {\"seq\": N, \"event\": \"logout\", \"at\": \"…Z\"} (docs/recordings.md)")
            }
        }
        // Events go before the entry that follows them in Conform's numbering; ties keep the event first.
        return events.enumerated().sorted { ($0.element.seq, $0.offset) < ($1.element.seq, $1.offset) }.map(\.element)
    }

    /// An entry's duration: `time`, else the sum of its non-negative `timings` (HAR uses -1 for "not applicable";
    /// `ssl` is already part of `connect`).
    static func entryDuration(_ entry: JSONValue) -> Double {
        if let time = entry["time"]?.numberValue, time.isFinite { return min(max(time, 0), 1e10) }
        guard case .object(let timings)? = entry["timings"] else { return 0 }
        let total = timings.reduce(0.0) { sum, pair in
            guard pair.key != "ssl", let ms = pair.value.numberValue, ms.isFinite, ms > 0 else { return sum }
            return sum + ms
        }
        return min(total, 1e10)
    }
}
