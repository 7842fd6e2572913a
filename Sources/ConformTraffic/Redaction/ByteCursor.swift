import Foundation

/// A reader that walks a buffer of bytes from `index`: what the byte-level readers of recorded lines and of JSON
/// bodies share.
protocol ByteCursor {
    var bytes: UnsafeBufferPointer<UInt8> { get }
    var index: Int { get set }
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
}
