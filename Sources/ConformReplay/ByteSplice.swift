/// Text rebuilt as bytes with some ranges replaced, copied only from the first replacement on: most text has none,
/// and then no copy is made (``result(_:)`` is `nil`).
struct ByteSplice {
    private var out: [UInt8]?
    private var copied = 0

    /// Replaces `range` of `text` (after every range replaced before it) with `replacement`.
    mutating func replace(
        _ range: Range<Int>, of text: UnsafeBufferPointer<UInt8>, with replacement: some Sequence<UInt8>
    ) {
        if out == nil {
            // Room for the text and a few longer replacements at once, not grown step by step.
            out = []
            out!.reserveCapacity(text.count + 64)
        }
        out!.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied..<range.lowerBound]))
        out!.append(contentsOf: replacement)
        copied = range.upperBound
    }

    /// The whole text with its replacements, or `nil` when nothing was replaced.
    func result(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard var out else { return nil }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied...]))
        return out
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Calls `body` with each longest run of bytes that `member` accepts, in order: the words of a text.
    func forEachRun(of member: (UInt8) -> Bool, _ body: (Range<Int>) -> Void) {
        var i = 0
        while i < count {
            guard member(self[i]) else {
                i += 1
                continue
            }
            var j = i
            while j < count, member(self[j]) { j += 1 }
            body(i..<j)
            i = j
        }
    }
}
