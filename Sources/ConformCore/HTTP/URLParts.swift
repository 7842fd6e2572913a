/// A URL split into scheme+authority, path and query without Foundation's normalisation.
public struct URLParts: Sendable, Hashable {
    /// `http://host:port`, or empty for an origin-form target.
    public var origin: String
    public var path: String
    public var query: String?

    public init(_ url: String) {
        // Scans UTF-8 once; URLs are ASCII in practice and the delimiters always are.
        var utf8 = Substring(url).utf8
        if let hash = utf8.firstIndex(of: UInt8(ascii: "#")) { utf8 = utf8[..<hash] }
        var originEnd = utf8.startIndex
        // Only a scheme (a letter, then letters, digits, `+`, `-`, `.`) before `://` starts an origin: an
        // origin-form target such as `/a?next=http://b/` keeps its whole path and query.
        if let colon = utf8.firstIndex(of: UInt8(ascii: ":")), Self.isScheme(utf8[utf8.startIndex..<colon]) {
            let after = utf8[colon...]
            if after.starts(with: "://".utf8) {
                let authorityStart = utf8.index(colon, offsetBy: 3)
                originEnd =
                    utf8[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
                    ?? utf8.endIndex
            }
        }
        origin = String(Substring(utf8[utf8.startIndex..<originEnd]))
        let rest = utf8[originEnd...]
        if let q = rest.firstIndex(of: UInt8(ascii: "?")) {
            path = String(Substring(rest[rest.startIndex..<q]))
            query = String(Substring(rest[rest.index(after: q)...]))
        } else {
            path = String(Substring(rest))
            query = nil
        }
        if path.isEmpty { path = "/" }
    }

    private static func isScheme(_ bytes: Substring.UTF8View) -> Bool {
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

    /// The raw query of `url` (without `?` and fragment) as UTF-8, without splitting the rest.
    static func rawQuery(of url: String) -> Substring.UTF8View? {
        var utf8 = Substring(url).utf8
        if let hash = utf8.firstIndex(of: UInt8(ascii: "#")) { utf8 = utf8[..<hash] }
        guard let q = utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return utf8[utf8.index(after: q)...]
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
