import ConformCore
import Foundation

/// Reads the two members of `bundle.json` that grow with the run, `pseudonyms` (an object of strings) and
/// `failures` (a list of objects of strings), in place from the file's bytes: one entry at a time, straight into
/// the values kept, with no tree and no list of members in between. It takes only what the writer writes; on
/// anything else (`nil`) the caller parses the document whole, which names what is wrong.
struct FlatJSONReader {
    let bytes: [UInt8]
    var index: Int
    let end: Int

    /// The pseudonyms and failures of a `bundle.json` whose other members are `read`; `nil` when either is not
    /// as the writer writes it, or holds more than the limits allow.
    static func entries(
        _ bytes: [UInt8], _ read: (root: JSONValue, pseudonyms: Range<Int>?, failures: Range<Int>?)
    ) -> (pseudonyms: [String: String], failures: [BundleInfo.Failure])? {
        guard let pseudonymRange = read.pseudonyms, let failureRange = read.failures else { return nil }
        var pseudonyms: [String: String] = [:]
        var reader = FlatJSONReader(bytes: bytes, index: pseudonymRange.lowerBound, end: pseudonymRange.upperBound)
        guard
            reader.object({ key, value in
                pseudonyms.updateValue(value, forKey: key) == nil && pseudonyms.count <= BundlePseudonyms.maxValues
            }), reader.atEnd
        else { return nil }
        var failures: [BundleInfo.Failure] = []
        reader = FlatJSONReader(bytes: bytes, index: failureRange.lowerBound, end: failureRange.upperBound)
        guard
            reader.array({ reader in
                var tag: String?, kind: String?, message: String?
                guard
                    reader.object({ key, value in
                        switch key {
                        case "tag": tag = value
                        case "kind": kind = value
                        case "message": message = value
                        default: break
                        }
                        return true
                    }), let tag, let kind, let message, failures.count < 1_000_000
                else { return false }
                failures.append(BundleInfo.Failure(tag: tag, kind: kind, message: message))
                return true
            }), reader.atEnd
        else { return nil }
        return (pseudonyms, failures)
    }

    var atEnd: Bool {
        mutating get {
            skipSpace()
            return index == end
        }
    }

    mutating func skipSpace() {
        while index < end {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Whether the next byte (after space) is `byte`, taken when it is.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < end, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// A JSON string of at most 65,536 bytes; one with escapes is decoded by the JSON parser.
    mutating func string() -> String? {
        skipSpace()
        guard index < end, bytes[index] == 0x22 else { return nil }
        let start = index + 1
        var i = start
        var escaped = false
        while i < end, bytes[i] != 0x22 {
            if bytes[i] < 0x20 { return nil }
            if bytes[i] == 0x5C {
                escaped = true
                i += 1
            }
            i += 1
        }
        guard i < end, i - start <= 65536 else { return nil }
        index = i + 1
        if !escaped { return String(decoding: bytes[start..<i], as: UTF8.self) }
        return (try? JSONValue.parse(bytes: Array(bytes[(start - 1)...i])))?.stringValue
    }

    /// An object of strings, each member given to `member`, which says whether to go on.
    mutating func object(_ member: (String, String) -> Bool) -> Bool {
        guard take(0x7B) else { return false }
        if take(0x7D) { return true }
        repeat {
            guard let key = string(), take(0x3A), let value = string(), member(key, value) else { return false }
        } while take(0x2C)
        return take(0x7D)
    }

    /// A list, each element read by `element`, which says whether it was read.
    mutating func array(_ element: (inout FlatJSONReader) -> Bool) -> Bool {
        guard take(0x5B) else { return false }
        if take(0x5D) { return true }
        repeat {
            guard element(&self) else { return false }
        } while take(0x2C)
        return take(0x5D)
    }
}
