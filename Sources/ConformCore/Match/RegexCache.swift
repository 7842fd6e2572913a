import Foundation
import Synchronization

/// Compiled regular expressions by pattern, so a check run thousands of times compiles its pattern once.
enum RegexCache {
    private static let cache = Mutex<[String: NSRegularExpression]>([:])

    /// The compiled pattern; throws when it is not a valid ICU regular expression.
    static func regex(_ pattern: String) throws -> NSRegularExpression {
        if let hit = cache.withLock({ $0[pattern] }) { return hit }
        let compiled = try NSRegularExpression(pattern: pattern)
        cache.withLock { cache in
            if cache.count > 4096 { cache.removeAll() }
            cache[pattern] = compiled
        }
        return compiled
    }

    /// Whether `pattern` matches somewhere in `text`, as `NSRegularExpression` would decide; a pattern that is plain
    /// text after an optional `^` (the usual `^application/json`) is compared byte for byte, without ICU.
    static func matches(_ pattern: String, _ text: String) throws -> Bool {
        var literal = Substring(pattern).utf8
        let anchored = literal.first == UInt8(ascii: "^")
        if anchored { literal = literal.dropFirst() }
        // An empty pattern is not a valid ICU pattern: it goes to ICU and fails there as before.
        if !literal.isEmpty, literal.allSatisfy(isPlain) {
            if anchored { return text.utf8.starts(with: literal) }
            let bytes = Array(text.utf8)
            let needle = Array(literal)
            guard bytes.count >= needle.count else { return false }
            return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
        }
        let regex = try regex(pattern)
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// Letters, digits and punctuation that mean themselves in an ICU pattern.
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"),
            UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: " "):
            return true
        default:
            return false
        }
    }
}
