/// The session times of M9 (§3.7): Android writes `yyyy-MM-dd'T'HH:mm:ssZ` (`+0100`), iOS `ZZZZZ` (`+01:00`).
enum SessionTime {
    /// Whether `text` is `yyyy-MM-ddTHH:mm:ss`, an optional fraction of a second, then `Z`, `±hh:mm` or (when
    /// `allowCompactOffset`) `±hhmm`, with every field in range.
    static func isValid(_ text: String, allowCompactOffset: Bool = true) -> Bool {
        let c = Array(text.utf8)
        guard c.count >= 20, c.count <= 40 else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c[i]) else { return nil }
                value = value * 10 + Int(c[i] - UInt8(ascii: "0"))
            }
            return value
        }
        guard number(0..<4) != nil, c[4] == UInt8(ascii: "-"), let month = number(5..<7), (1...12).contains(month),
            c[7] == UInt8(ascii: "-"), let day = number(8..<10), (1...31).contains(day), c[10] == UInt8(ascii: "T"),
            let hour = number(11..<13), hour < 24, c[13] == UInt8(ascii: ":"), let minute = number(14..<16),
            minute < 60, c[16] == UInt8(ascii: ":"), let second = number(17..<19), second <= 60
        else { return false }
        var i = 19
        if c[i] == UInt8(ascii: ".") {
            i += 1
            let digits = i
            while i < c.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c[i]) { i += 1 }
            guard i > digits, i < c.count else { return false }
        }
        let offset = Array(c[i...])
        if offset == [UInt8(ascii: "Z")] { return true }
        guard let sign = offset.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return false }
        let rest = Array(offset.dropFirst())
        let digits: [UInt8]
        if rest.count == 5, rest[2] == UInt8(ascii: ":") {
            digits = Array(rest[0..<2] + rest[3..<5])
        } else if rest.count == 4, allowCompactOffset {
            digits = rest
        } else {
            return false
        }
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return false }
        let hours = Int(digits[0] - UInt8(ascii: "0")) * 10 + Int(digits[1] - UInt8(ascii: "0"))
        let minutes = Int(digits[2] - UInt8(ascii: "0")) * 10 + Int(digits[3] - UInt8(ascii: "0"))
        return hours <= 14 && minutes < 60
    }
}
