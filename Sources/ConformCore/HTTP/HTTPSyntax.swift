/// What may go on the wire: a method and header names are tokens, header values and the target hold no line
/// breaks or NUL. Anything else read from a recording, a HAR or a suite could smuggle a second request.
public enum HTTPSyntax {
    /// RFC 9110 `tchar`: the characters of a token.
    public static func isToken(_ text: String) -> Bool {
        !text.isEmpty && allBytes(of: text, isTokenByte)
    }

    /// Whether every byte of `text` satisfies `predicate`, read from its contiguous storage when it has one (native
    /// strings do), which a byte-by-byte walk of `utf8` is several times slower than.
    @inline(__always)
    static func allBytes(of text: String, _ predicate: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(predicate) } ?? text.utf8.allSatisfy(predicate)
    }

    /// A byte of a token: a letter, a digit or one of ``!#$%&'*+-.^_`|~`` (every header name of every request is
    /// checked, so without a table to look up). The one test of RFC 9110's `tchar` in the project.
    @inline(__always)
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
            UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// A host with an optional port as a user or a trace names one (`api.example.com`, `10.0.0.1:8080`,
    /// `[::1]:443`): 1 to 255 letters, digits and `-._:[]`, nothing that could add a scheme, a path or credentials.
    public static func isHostAndPort(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255
            && allBytes(of: text) { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                    true
                default: false
                }
            }
    }

    /// A header value with no CR, LF or NUL (other bytes are sent as they are).
    public static func isFieldValue(_ text: String) -> Bool {
        allBytes(of: text) { $0 != 0x0D && $0 != 0x0A && $0 != 0x00 }
    }

    /// A request target (URL) with no spaces or control characters.
    public static func isTarget(_ text: String) -> Bool {
        !text.isEmpty && allBytes(of: text) { $0 > 0x20 && $0 != 0x7F }
    }

    /// Why `request` must not be sent, or `nil` when it may.
    public static func problem(in request: HTTPRequest) -> String? {
        if !isToken(request.method.rawValue) {
            return "method \(quoted(request.method.rawValue)) is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~)"
        }
        if let problem = urlFormProblem(request.url) { return "URL \(quoted(request.url)) \(problem)" }
        for field in request.headerFields {
            if !isToken(field.name) { return "header name \(quoted(field.name)) is not an HTTP token" }
            if !isFieldValue(field.value) {
                return "header \(field.name) holds a line break or NUL: \(quoted(field.value))"
            }
        }
        return nil
    }

    /// `text` quoted with control characters escaped and cut to 80 characters, for messages.
    public static func quoted(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars.prefix(80) {
            switch scalar {
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            case "\0": out += "\\0"
            case "'": out += "\\'"
            default: out += scalar.value < 0x20 ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }
        }
        return out + (text.unicodeScalars.count > 80 ? "…'" : "'")
    }
}
