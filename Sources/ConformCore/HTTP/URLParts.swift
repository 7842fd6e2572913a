/// A URL split into scheme+authority, path and query without Foundation's normalisation.
public struct URLParts: Sendable, Hashable {
    /// `http://host:port`, or empty for an origin-form target.
    public var origin: String
    public var path: String
    public var query: String?

    public init(_ url: String) {
        if let parts = url.utf8.withContiguousStorageIfAvailable({ Self.split($0) }) {
            self = parts
            return
        }
        self = Self.split(Array(url.utf8))
    }

    /// The split on UTF-8 bytes in one pass, each part copied once: a URL is parsed for every request a server
    /// answers, where walking a `Substring.UTF8View` index by index cost more than the rest of the work.
    private static func split<C: RandomAccessCollection<UInt8>>(_ bytes: C) -> URLParts where C.Index == Int {
        let (start, originEnd, end) = bounds(bytes)
        let text = { (range: Range<Int>) in String(decoding: bytes[range], as: UTF8.self) }
        var parts = URLParts(origin: text(start..<originEnd), path: "", query: nil)
        if let q = bytes[originEnd..<end].firstIndex(of: UInt8(ascii: "?")) {
            parts.path = text(originEnd..<q)
            parts.query = text((q + 1)..<end)
        } else {
            parts.path = text(originEnd..<end)
        }
        if parts.path.isEmpty { parts.path = "/" }
        return parts
    }

    /// Where the origin ends and where the fragment begins (or the end): the path and query lie between them.
    private static func bounds<C: RandomAccessCollection<UInt8>>(_ bytes: C) -> (start: Int, originEnd: Int, end: Int)
    where C.Index == Int {
        var end = bytes.endIndex
        if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) { end = hash }
        let start = bytes.startIndex
        var originEnd = start
        // Only a scheme (a letter, then letters, digits, `+`, `-`, `.`) before `://` starts an origin: an
        // origin-form target such as `/a?next=http://b/` keeps its whole path and query.
        if let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":")), isScheme(bytes[start..<colon]),
            end - colon >= 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        {
            originEnd =
                bytes[(colon + 3)..<end].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? end
        }
        return (start, originEnd, end)
    }

    /// `prefix` followed by ``target`` of `url`, made in one piece without splitting `url` into its parts.
    public static func appendingTarget(of url: String, to prefix: String) -> String {
        let joined = url.utf8.withContiguousStorageIfAvailable { bytes -> String in
            let (_, originEnd, end) = bounds(bytes)
            // An empty path is `/`, before the query when there is one.
            let slash = originEnd == end || bytes[originEnd] == UInt8(ascii: "?")
            let head = prefix.utf8.count
            return String(unsafeUninitializedCapacity: head + (slash ? 1 : 0) + end - originEnd) { out in
                var count = out.initialize(fromContentsOf: prefix.utf8)
                if slash {
                    out[count] = UInt8(ascii: "/")
                    count += 1
                }
                let target = UnsafeBufferPointer(rebasing: bytes[originEnd..<end])
                _ = UnsafeMutableBufferPointer(rebasing: out[count...]).initialize(fromContentsOf: target)
                return count + target.count
            }
        }
        return joined ?? prefix + URLParts(url).target
    }

    private init(origin: String, path: String, query: String?) {
        self.origin = origin
        self.path = path
        self.query = query
    }

    private static func isScheme<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        guard let first = bytes.first, (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z") else {
            return false
        }
        return bytes.allSatisfy { byte in
            let lower = byte | 0x20
            return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    /// The first value of the query parameter `name` in `url` (percent-decoded), without splitting the rest.
    static func queryValue(_ name: String, in url: String) -> String? {
        if let found = url.utf8.withContiguousStorageIfAvailable({ queryValue(name, in: $0) }) { return found }
        return Array(url.utf8).withUnsafeBufferPointer { queryValue(name, in: $0) }
    }

    /// One pass over the bytes: the query begins after the first `?` before any `#`, and ends at the first `#`.
    private static func queryValue(_ name: String, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let count = bytes.count
        var i = 0
        while i < count, bytes[i] != UInt8(ascii: "?") {
            if bytes[i] == UInt8(ascii: "#") { return nil }
            i += 1
        }
        guard i < count else { return nil }
        let asciiName = name.utf8.allSatisfy { $0 < 0x80 }
        var pairStart = i + 1
        while true {
            var pairEnd = pairStart
            var eq = -1
            var plain = true
            while pairEnd < count, bytes[pairEnd] != UInt8(ascii: "&"), bytes[pairEnd] != UInt8(ascii: "#") {
                let byte = bytes[pairEnd]
                if eq < 0 {
                    if byte == UInt8(ascii: "=") {
                        eq = pairEnd
                    } else if byte == UInt8(ascii: "%") || byte >= 0x80 {
                        plain = false
                    }
                }
                pairEnd += 1
            }
            if pairStart < pairEnd {
                let keyEnd = eq < 0 ? pairEnd : eq
                let key = UnsafeBufferPointer(rebasing: bytes[pairStart..<keyEnd])
                // ASCII on both sides without `%` compares byte for byte, which is the answer `String` gives.
                let same = plain && asciiName ? key.elementsEqual(name.utf8) : decoded(key) == name
                if same { return eq < 0 ? "" : decoded(bytes[(eq + 1)..<pairEnd]) }
            }
            guard pairEnd < count, bytes[pairEnd] == UInt8(ascii: "&") else { return nil }
            pairStart = pairEnd + 1
        }
    }

    private static func decoded<C: Collection<UInt8>>(_ bytes: C) -> String {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        return percentDecode(Substring(String(decoding: bytes, as: UTF8.self)).utf8)
    }

    /// Path plus `?query` when present.
    public var target: String { query.map { "\(path)?\($0)" } ?? path }

    /// The host and port of the origin, e.g. `127.0.0.1:8080`.
    public var authority: String {
        // A byte search: Foundation's `range(of:)` would cost more than the rest of the parse.
        let utf8 = origin.utf8
        var index = utf8.startIndex
        while let colon = utf8[index...].firstIndex(of: UInt8(ascii: ":")) {
            if utf8[colon...].starts(with: "://".utf8) {
                return String(Substring(utf8[utf8.index(colon, offsetBy: 3)...]))
            }
            index = utf8.index(after: colon)
        }
        return origin
    }

    /// Query parameters in order, percent-decoded.
    public var queryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        var items: [(name: String, value: String)] = []
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let eq = pair.firstIndex(of: UInt8(ascii: "=")) {
                items.append((percentDecode(pair[pair.startIndex..<eq]), percentDecode(pair[pair.index(after: eq)...])))
            } else {
                items.append((percentDecode(pair), ""))
            }
        }
        return items
    }
}

/// Decodes `%XX` escapes; invalid escapes are kept as written.
public func percentDecode<S: StringProtocol>(_ text: S) -> String {
    percentDecode(Substring(text).utf8)
}

/// Decodes `%XX` escapes in UTF-8 bytes; invalid escapes are kept as written.
func percentDecode(_ utf8: Substring.UTF8View) -> String {
    guard utf8.contains(UInt8(ascii: "%")) else { return String(Substring(utf8)) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count)
    var rest = Array(utf8)[...]
    while let byte = rest.popFirst() {
        if byte == UInt8(ascii: "%"), rest.count >= 2,
            let hi = hexValue(rest[rest.startIndex]),
            let lo = hexValue(rest[rest.startIndex + 1])
        {
            bytes.append(hi << 4 | lo)
            rest = rest.dropFirst(2)
        } else {
            bytes.append(byte)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Encodes everything but RFC 3986 unreserved characters as `%XX`.
public func percentEncode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            out.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = Array("0123456789ABCDEF".utf8)
            out += "%"
            out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
            out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0xF)]))
        }
    }
    return out
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
