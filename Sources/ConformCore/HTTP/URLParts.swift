/// A URL split into scheme+authority, path and query without Foundation's normalisation.
public struct URLParts: Sendable, Hashable {
    /// `http://host:port`, or empty for an origin-form target.
    public var origin: String
    public var path: String
    public var query: String?

    public init(_ url: String) {
        var rest = Substring(url)
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        var origin = Substring("")
        if let schemeEnd = rest.range(of: "://") {
            let afterScheme = rest[schemeEnd.upperBound...]
            let slash = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
            origin = rest[..<slash]
            rest = afterScheme[slash...]
        }
        self.origin = String(origin)
        if let q = rest.firstIndex(of: "?") {
            path = String(rest[..<q])
            query = String(rest[rest.index(after: q)...])
        } else {
            path = String(rest)
            query = nil
        }
        if path.isEmpty { path = "/" }
    }

    /// Path plus `?query` when present.
    public var target: String { query.map { "\(path)?\($0)" } ?? path }

    /// The host and port of the origin, e.g. `127.0.0.1:8080`.
    public var authority: String {
        guard let range = origin.range(of: "://") else { return origin }
        return String(origin[range.upperBound...])
    }

    /// Query parameters in order, percent-decoded.
    public var queryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let eq = pair.firstIndex(of: "=") {
                return (percentDecode(pair[..<eq]), percentDecode(pair[pair.index(after: eq)...]))
            }
            return (percentDecode(pair), "")
        }
    }
}

/// Decodes `%XX` escapes; invalid escapes are kept as written.
public func percentDecode<S: StringProtocol>(_ text: S) -> String {
    guard text.contains("%") else { return String(text) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = Array(text.utf8)[...]
    while let byte = iterator.popFirst() {
        if byte == UInt8(ascii: "%"), iterator.count >= 2,
            let hi = hexValue(iterator[iterator.startIndex]),
            let lo = hexValue(iterator[iterator.startIndex + 1])
        {
            bytes.append(hi << 4 | lo)
            iterator = iterator.dropFirst(2)
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
