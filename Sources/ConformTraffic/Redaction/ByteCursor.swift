import Foundation

/// A reader that walks a buffer of bytes from `index`: what the byte-level readers of recorded lines, of HAR files
/// and of JSON bodies share.
protocol ByteCursor {
    var bytes: UnsafeBufferPointer<UInt8> { get }
    var index: Int { get set }
    /// Steps over JSON white space (spaces, tabs, line breaks).
    mutating func skipWhitespace()
}

extension ByteCursor {
    /// Steps over `text` when the bytes continue with it.
    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count, memcmp(bytes.baseAddress! + index, text.utf8Start, count) == 0 else {
            return false
        }
        index += count
        return true
    }

    /// The byte at ``index``, `nil` at the end.
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count, Redactor.isJSONSpace(bytes[index]) { index += 1 }
    }

    /// Walks the comma-separated items between `open` (at ``index``) and `close`, handing each to `item` at its
    /// first byte; `false` when an item or what comes between them is not as JSON has it.
    mutating func items(open: UInt8, close: UInt8, _ item: (inout Self) -> Bool) -> Bool {
        guard peek == open else { return false }
        index += 1
        skipWhitespace()
        if peek == close {
            index += 1
            return true
        }
        while true {
            skipWhitespace()
            guard item(&self) else { return false }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case close:
                index += 1
                return true
            default: return false
            }
        }
    }

    /// Walks an object's members, reading each key at its opening quote with `key` and handing it to `member`
    /// with the index at its value.
    mutating func members(key: (inout Self) -> String?, _ member: (String, inout Self) -> Bool) -> Bool {
        items(open: UInt8(ascii: "{"), close: UInt8(ascii: "}")) { cursor in
            guard cursor.peek == UInt8(ascii: "\""), let name = key(&cursor) else { return false }
            cursor.skipWhitespace()
            guard cursor.peek == UInt8(ascii: ":") else { return false }
            cursor.index += 1
            cursor.skipWhitespace()
            return member(name, &cursor)
        }
    }
}
