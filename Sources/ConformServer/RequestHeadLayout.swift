/// Finds bytes of a request head that libmicrohttpd read but never hands to the handler.
///
/// libmicrohttpd 0.9.75 parses the head in place, in its read buffer, and hands out C strings: a NUL byte inside
/// the method, the target or a field value silently cuts off what follows it (`GET /a\0b` arrives as `/a`), and a
/// folded field line (obs-fold) is dropped the same way. The pieces it hands out lie in order in that buffer,
/// separated only by the separators it overwrote with NUL and by whitespace; any other byte between two pieces is
/// one the client sent and a recording proxy would silently lose.
struct RequestHeadLayout {
    /// What a piece is; fields by their index in arrival order.
    enum Kind {
        case method
        case target
        case version
        case fieldName(Int)
        case fieldValue(Int)
    }

    /// One string libmicrohttpd handed out, where it lies in the buffer.
    struct Piece {
        var address: Int
        var count: Int
        var kind: Kind

        var end: Int { address + count }
    }

    /// The first byte of the head (the method) and one past its end (the empty line included).
    let start: Int
    let end: Int
    var pieces: [Piece] = []

    init(start: Int, count: Int) {
        self.start = start
        self.end = start + count
    }

    /// Separators libmicrohttpd leaves between pieces: the NUL it wrote over a space, colon or line end, and
    /// whitespace it skipped.
    static func isSeparator(_ byte: UInt8) -> Bool {
        byte == 0 || byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }

    /// The refusal for the first piece followed by bytes that are not separators, or `nil`. A piece outside the
    /// head (libmicrohttpd copies a folded line elsewhere) leaves the gaps beside it unchecked, but the bytes it
    /// was folded from still lie between its neighbours.
    func firstHidden(fieldName: (Int) -> String) -> RequestHeadRules.Refusal? {
        guard end > start, pieces.first?.address == start else { return nil }
        let inHead = pieces.filter { $0.address >= start && $0.end <= end }
        for (index, piece) in inHead.enumerated() {
            let gapEnd = index + 1 < inHead.count ? inHead[index + 1].address : end
            guard gapEnd >= piece.end, let base = UnsafeRawPointer(bitPattern: piece.end) else { continue }
            let gap = UnsafeRawBufferPointer(start: base, count: gapEnd - piece.end)
            guard let hidden = gap.firstIndex(where: { !Self.isSeparator($0) }) else { continue }
            let dropped = gap[hidden...].prefix { $0 != 0 }.prefix(20)
            let name =
                switch piece.kind {
                case .method: "method"
                case .target: "request target"
                case .version: "HTTP version"
                case .fieldName(let index): "name of header field '\(RequestHeadRules.shown(fieldName(index).utf8))'"
                case .fieldValue(let index): "value of header field '\(RequestHeadRules.shown(fieldName(index).utf8))'"
                }
            return .badRequest(
                "the \(name) is followed by bytes the server would drop ('\(RequestHeadRules.shown(dropped))'): "
                    + "a NUL byte cuts a method, target or field value short, and a header line continued on the next "
                    + "(obs-fold, RFC 9112 section 5.2) is not passed on; remove the NUL byte or unfold the line")
        }
        return nil
    }
}
