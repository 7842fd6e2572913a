import Foundation

extension StringProtocol where UTF8View: BidirectionalCollection {
    /// The text without leading and trailing whitespace, as `trimmingCharacters(in: .whitespaces)` gives it, without
    /// Foundation's character-set search when the ends are visible ASCII (header values almost always are).
    public var trimmingWhitespace: String {
        guard let first = utf8.first, let last = utf8.last else { return "" }
        if Self.isVisibleASCII(first), Self.isVisibleASCII(last) { return String(self) }
        return trimmingCharacters(in: .whitespaces)
    }

    private static func isVisibleASCII(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
}
