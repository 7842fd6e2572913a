import Foundation

/// ISO-8601 timestamps in UTC with milliseconds, formatted and parsed without locale or formatter state.
public enum ISOTimestamp {
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// `date` cut to whole milliseconds, as a recording keeps it.
    public static func truncatedToMilliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds(date)) / 1000)
    }

    /// `2026-01-05T10:00:00.123Z`.
    public static func format(_ date: Date) -> String {
        let ms = milliseconds(date)
        let (days, msOfDay) = floorDivide(ms, 86_400_000)
        let (y, m, d) = civil(fromDays: days)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let milli = msOfDay % 1000
        return
            "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(milli, 3))Z"
    }

    /// Appends ``format(_:)``'s text to `out` without making a `String` of it (a recording line is bytes).
    static func write(_ date: Date, into out: inout [UInt8]) {
        let ms = milliseconds(date)
        let (days, msOfDay) = floorDivide(ms, 86_400_000)
        let (y, m, d) = civil(fromDays: days)
        guard (0...9999).contains(y) else {
            out.append(contentsOf: format(date).utf8)
            return
        }
        func digits(_ v: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(v / divisor % 10))
                divisor /= 10
            }
        }
        digits(y, 4)
        out.append(UInt8(ascii: "-"))
        digits(m, 2)
        out.append(UInt8(ascii: "-"))
        digits(d, 2)
        out.append(UInt8(ascii: "T"))
        digits(msOfDay / 3_600_000, 2)
        out.append(UInt8(ascii: ":"))
        digits(msOfDay / 60_000 % 60, 2)
        out.append(UInt8(ascii: ":"))
        digits(msOfDay / 1000 % 60, 2)
        out.append(UInt8(ascii: "."))
        digits(msOfDay % 1000, 3)
        out.append(UInt8(ascii: "Z"))
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`; `nil` when it is not one.
    static func parse(_ text: String) -> Date? {
        text.utf8.withContiguousStorageIfAvailable(parse) ?? Array(text.utf8).withUnsafeBufferPointer(parse)
    }

    /// ``parse(_:)`` of the text's UTF-8 bytes.
    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        func num(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            var v: Int64 = 0
            for i in from..<from + count {
                guard (48...57).contains(b[i]) else { return nil }
                v = v * 10 + Int64(b[i] - 48)
            }
            return v
        }
        guard b.count >= 19, let y = num(0, 4), b[4] == UInt8(ascii: "-"), let mo = num(5, 2),
            b[7] == UInt8(ascii: "-"),
            let d = num(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), let h = num(11, 2),
            b[13] == UInt8(ascii: ":"), let mi = num(14, 2), b[16] == UInt8(ascii: ":"), let s = num(17, 2),
            (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61
        else { return nil }
        var i = 19
        var ms: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count, (48...57).contains(b[i]) {
                if digits < 3 { ms = ms * 10 + Int64(b[i] - 48) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { ms *= 10 } }
        }
        var offsetMinutes: Int64 = 0
        if i < b.count {
            if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
                i += 1
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign: Int64 = b[i] == UInt8(ascii: "-") ? -1 : 1
                guard let oh = num(i + 1, 2) else { return nil }
                var next = i + 3
                if next < b.count, b[next] == UInt8(ascii: ":") { next += 1 }
                guard let om = num(next, 2) else { return nil }
                offsetMinutes = sign * (oh * 60 + om)
                i = next + 2
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        let days = days(fromCivil: y, mo, d)
        let total = ((days * 24 + h) * 60 + mi - offsetMinutes) * 60_000 + s * 1000 + ms
        return Date(timeIntervalSince1970: Double(total) / 1000)
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        var q = a / b
        var r = a % b
        if r < 0 {
            q -= 1
            r += b
        }
        return (q, r)
    }

    // Howard Hinnant's days-from-civil algorithms.
    private static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
