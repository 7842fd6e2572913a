import Foundation

/// A time's fields in UTC, as the reports' timestamps write them, worked out by the C library (`gmtime_r`).
///
/// The reports write two or three times a run; ICU's date formatter, behind `ISO8601DateFormatter`, pages in
/// locale, calendar and time-zone data for them (3 to 4 MB of resident memory). The text is the
/// formatter's, rounded to the millisecond as it rounds.
struct UTCTime {
    /// `yyyy-MM-dd`.
    let day: String
    /// `HH:mm:ss`.
    let time: String
    /// `SSS`.
    let milliseconds: String

    init(_ date: Date) {
        // The formatter hands ICU the milliseconds since 1970 plus a half, which ICU floors: the time is rounded to
        // the millisecond, and a text without milliseconds shows the second that rounded time falls in.
        let total = (date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down)
        let millis = total.isFinite ? Int64(max(-1e15, min(1e15, total))) : 0
        let (seconds, fraction) = millis.quotientAndRemainder(dividingBy: 1000)
        var since1970 = time_t(fraction < 0 ? seconds - 1 : seconds)
        var fields = tm()
        gmtime_r(&since1970, &fields)
        let calendarDay = [Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday)]
        day = zip(calendarDay, [4, 2, 2]).map { Self.digits($0, $1) }.joined(separator: "-")
        time = [fields.tm_hour, fields.tm_min, fields.tm_sec].map { Self.digits(Int($0), 2) }.joined(separator: ":")
        milliseconds = Self.digits(Int(fraction < 0 ? fraction + 1000 : fraction), 3)
    }

    /// `value` in decimal, zero-padded to `width` digits.
    static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
