import Foundation

extension ReportVerdicts {
    /// Reads a report's bytes as they come: ``feed(_:)`` as often as needed, then ``finish()``.
    public struct Scanner: Sendable {
        enum State: Sendable {
            case text
            case tag
            case comment
            case cdata
            /// Inside `<script>` or `<style>`, until `</name`.
            case raw([UInt8])
        }

        let format: Format
        var state = State.text
        var tag: [UInt8] = []
        var tagTooLong = false
        /// The last bytes seen inside a comment, CDATA section or raw element, to find its end.
        var tail: [UInt8] = []
        /// The content of the `<script>` or `<style>` being read, up to ``ReportVerdicts/maxRawBytes`` (and one
        /// byte more, to tell a longer one).
        var raw: [UInt8] = []
        var verdicts = ReportVerdicts()
        var reading = Reading()

        static let commentStart = Array("!--".utf8), commentEnd = Array("-->".utf8)
        static let cdataStart = Array("![CDATA[".utf8), cdataEnd = Array("]]>".utf8)

        public init(format: Format) { self.format = format }

        public mutating func feed(_ bytes: some Sequence<UInt8>) {
            let array = Array(bytes)
            array.withUnsafeBytes { feed($0) }
        }

        /// Reads `bytes`: text outside the items and the insides of comments, CDATA sections and raw elements are
        /// passed over with `memchr`, so a report of a gigabyte is read at the speed of the disk.
        public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress else { return }
            let n = bytes.count
            var i = 0
            func next(_ byte: UInt8, from start: Int) -> Int? {
                memchr(base + start, Int32(byte), n - start).map { base.distance(to: UnsafeRawPointer($0)) }
            }
            while i < n {
                switch state {
                case .text:
                    let end = next(UInt8(ascii: "<"), from: i) ?? n
                    if reading.capture != nil, reading.captured.count < ReportVerdicts.maxTextBytes {
                        let take = min(end - i, ReportVerdicts.maxTextBytes - reading.captured.count)
                        reading.captured.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<(i + take)]))
                    }
                    if end < n { step(bytes[end]) }
                    i = end + 1
                case .comment, .cdata:
                    // The end marker ends at a `>`: only the two bytes before it matter.
                    guard let close = next(UInt8(ascii: ">"), from: i) else {
                        let from = max(i, n - 2)
                        if from > i { tail.removeAll() }
                        for j in from..<n { step(bytes[j]) }
                        i = n
                        continue
                    }
                    let from = max(i, close - 2)
                    if from > i { tail.removeAll() }
                    for j in from...close { step(bytes[j]) }
                    i = close + 1
                case .raw:
                    // While a `<` is among the last bytes, the end tag may be under way: byte by byte.
                    if tail.contains(UInt8(ascii: "<")) {
                        step(bytes[i])
                        i += 1
                        continue
                    }
                    let open = next(UInt8(ascii: "<"), from: i) ?? n
                    keepRaw(UnsafeRawBufferPointer(rebasing: bytes[i..<open]))
                    tail.removeAll()
                    if open < n { step(bytes[open]) }
                    i = open + 1
                case .tag:
                    step(bytes[i])
                    i += 1
                }
            }
        }

        public mutating func finish() -> ReportVerdicts {
            if case .tag = state { verdicts.items.append(Item("the end of the report", "an unfinished tag")) }
            return verdicts
        }

        mutating func step(_ byte: UInt8) {
            switch state {
            case .text:
                if byte == UInt8(ascii: "<") {
                    state = .tag
                    tag.removeAll(keepingCapacity: true)
                    tagTooLong = false
                } else {
                    reading.text(byte)
                }
            case .tag:
                if tag.count == 3, tag == Self.commentStart {
                    state = .comment
                    tail = [byte]
                    return
                }
                if tag.count == 8, tag == Self.cdataStart {
                    state = .cdata
                    tail = [byte]
                    return
                }
                guard byte != UInt8(ascii: ">") else {
                    endTag()
                    return
                }
                if tag.count < ReportVerdicts.maxTagBytes { tag.append(byte) } else { tagTooLong = true }
            case .comment: ending(byte, Self.commentEnd)
            case .cdata: ending(byte, Self.cdataEnd)
            case .raw(let end):
                keepRaw(CollectionOfOne(byte))
                ending(byte, end, caseInsensitive: true)
            }
        }

        mutating func keepRaw(_ bytes: some Collection<UInt8>) {
            let room = ReportVerdicts.maxRawBytes + 1 - raw.count
            if room > 0 { raw.append(contentsOf: bytes.prefix(room)) }
        }

        /// Keeps the last bytes of a comment, CDATA section or raw element; back to text at `end` (for a raw
        /// element, its end tag is then read as a tag).
        mutating func ending(_ byte: UInt8, _ marker: [UInt8], caseInsensitive: Bool = false) {
            let lowered = caseInsensitive && byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
            tail.append(lowered)
            if tail.count > marker.count { tail.removeFirst(tail.count - marker.count) }
            guard tail == marker else { return }
            tail.removeAll()
            if case .raw = state {
                // The content without its end marker, which was kept with it.
                let name = String(decoding: marker.dropFirst(2), as: UTF8.self)
                let content =
                    raw.count > ReportVerdicts.maxRawBytes
                    ? "longer than \(ReportVerdicts.maxRawBytes) bytes"
                    : String(decoding: raw.dropLast(min(raw.count, marker.count)), as: UTF8.self)
                verdicts.items.append(Item("a \(name)", content))
                raw.removeAll()
                state = .tag
                tag = Array(marker.dropFirst())
                tagTooLong = false
            } else {
                state = .text
            }
        }

        mutating func endTag() {
            state = .text
            if tagTooLong {
                verdicts.items.append(Item("a tag", "longer than \(ReportVerdicts.maxTagBytes) bytes"))
                return
            }
            guard let parsed = ParsedTag(tag) else { return }
            switch format {
            case .junit: reading.junit(parsed, into: &verdicts)
            case .html: reading.html(parsed, into: &verdicts)
            }
            if format == .html, !parsed.closing, !parsed.selfClosing, parsed.name == "script" || parsed.name == "style"
            {
                state = .raw(Array("</\(parsed.name)".utf8))
                tail.removeAll()
                raw.removeAll()
            }
        }
    }

    /// A start or end tag: its name in lower case and its attributes as written (values still escaped).
    struct ParsedTag {
        var name: String
        var closing: Bool
        var selfClosing: Bool
        var attributes: [String: String]

        /// `nil` for a declaration or processing instruction (`<!DOCTYPE …>`, `<?xml …?>`).
        init?(_ bytes: [UInt8]) {
            var text = Substring(String(decoding: bytes, as: UTF8.self))
            guard let first = text.first, first != "!", first != "?" else { return nil }
            closing = first == "/"
            if closing { text = text.dropFirst() }
            selfClosing = text.hasSuffix("/")
            if selfClosing { text = text.dropLast() }
            let nameEnd = text.firstIndex { $0.isWhitespace } ?? text.endIndex
            name = text[..<nameEnd].lowercased()
            attributes = [:]
            var rest = text[nameEnd...]
            while true {
                rest = rest.drop { $0.isWhitespace }
                guard !rest.isEmpty else { break }
                let keyEnd = rest.firstIndex { $0 == "=" || $0.isWhitespace } ?? rest.endIndex
                let key = rest[..<keyEnd].lowercased()
                rest = rest[keyEnd...].drop { $0.isWhitespace }
                guard rest.first == "=" else {
                    attributes[key] = attributes[key] ?? ""
                    continue
                }
                rest = rest.dropFirst().drop { $0.isWhitespace }
                let value: Substring
                if let quote = rest.first, quote == "\"" || quote == "'" {
                    let body = rest.dropFirst()
                    let close = body.firstIndex(of: quote) ?? body.endIndex
                    value = body[..<close]
                    rest = close < body.endIndex ? body[body.index(after: close)...] : body[close...]
                } else {
                    let close = rest.firstIndex { $0.isWhitespace } ?? rest.endIndex
                    value = rest[..<close]
                    rest = rest[close...]
                }
                // The first of two attributes of one name counts, as in HTML.
                attributes[key] = attributes[key] ?? String(value)
            }
        }
    }
}
