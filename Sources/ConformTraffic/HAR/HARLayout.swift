import Foundation

/// Where the parts of a HAR are in its text, found by one pass over the bytes without building values: each entry
/// of `log.entries`, `log._conformEvents`, and the other members (to be checked as JSON on their own).
///
/// The scan gives up (`nil`) on anything it does not expect, and the caller then reads the document the plain
/// way, which reports the error or handles the rare form: a byte-order mark, a key with escapes or repeated at the
/// top two levels, `log` or `entries` missing or of another type, or text that does not balance.
struct HARLayout {
    var entries: [Range<Int>] = []
    var events: Range<Int>?
    var credentials: Range<Int>?
    var others: [Range<Int>] = []

    static func scan(_ data: Data) -> HARLayout? {
        data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self))
            return scanner.document()
        }
    }
    private struct Scanner: ByteCursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func document() -> HARLayout? {
            var layout = HARLayout()
            var sawLog = false
            skipWhitespace()
            let fine = members { key, scanner in
                guard key == "log" else { return scanner.other(into: &layout) }
                guard !sawLog else { return false }
                sawLog = true
                return scanner.log(into: &layout)
            }
            skipWhitespace()
            guard fine, sawLog, index == bytes.count else { return nil }
            return layout
        }

        mutating func log(into layout: inout HARLayout) -> Bool {
            var sawEntries = false
            var sawEvents = false
            var sawCredentials = false
            return members { key, scanner in
                switch key {
                case "entries":
                    guard !sawEntries else { return false }
                    sawEntries = true
                    return scanner.entries(into: &layout)
                case HAR.eventsKey:
                    layout.events = scanner.valueOnce(&sawEvents)
                    return layout.events != nil
                case HAR.credentialsKey:
                    layout.credentials = scanner.valueOnce(&sawCredentials)
                    return layout.credentials != nil
                default:
                    return scanner.other(into: &layout)
                }
            } && sawEntries
        }

        /// Where the value at the index is, skipped over; `nil` when it is not one or a member of its key came
        /// before (`seen`).
        mutating func valueOnce(_ seen: inout Bool) -> Range<Int>? {
            guard !seen else { return nil }
            seen = true
            let start = index
            guard skipValue() else { return nil }
            return start..<index
        }

        mutating func entries(into layout: inout HARLayout) -> Bool {
            items(open: UInt8(ascii: "["), close: UInt8(ascii: "]")) { scanner in
                guard scanner.peek == UInt8(ascii: "{") else { return false }
                let start = scanner.index
                guard scanner.skipValue() else { return false }
                layout.entries.append(start..<scanner.index)
                return true
            }
        }

        mutating func other(into layout: inout HARLayout) -> Bool {
            let start = index
            guard skipValue() else { return false }
            layout.others.append(start..<index)
            return true
        }

        /// Walks an object's members, handing each key (without escapes) to `member` with the index at its value.
        mutating func members(_ member: (String, inout Scanner) -> Bool) -> Bool {
            members(key: { $0.plainKey() }, member)
        }

        /// A key at the opening quote, when it has no escapes.
        mutating func plainKey() -> String? {
            let start = index + 1
            var i = start
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                if bytes[i] == UInt8(ascii: "\\") || bytes[i] < 0x20 { return nil }
                i += 1
            }
            guard i < bytes.count else { return nil }
            index = i + 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        }

        /// Skips one value (balanced brackets, strings with escapes); whether it is valid JSON is checked later.
        mutating func skipValue() -> Bool {
            guard let first = peek else { return false }
            switch first {
            case UInt8(ascii: "\""): return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return true
                        }
                    default: break
                    }
                    index += 1
                }
                return false
            default:
                let start = index
                while index < bytes.count {
                    let b = bytes[index]
                    if b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || b == 0x20
                        || b == 0x0A || b == 0x0D || b == 0x09
                    {
                        break
                    }
                    index += 1
                }
                return index > start
            }
        }

        mutating func skipString() -> Bool {
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    return true
                case UInt8(ascii: "\\"): index += 2
                default: index += 1
                }
            }
            return false
        }
    }
}
