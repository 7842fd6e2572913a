import ConformCore
import Testing

/// What `HTTPSyntax` lets on the wire, byte by byte and form by form.
@Suite struct HTTPSyntaxTests {
    /// RFC 9110's `tchar`, written out as the RFC lists it.
    static let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    static let neither =
        "is neither origin-form (/path?query) nor absolute (http://host/path); joined to a base URL it would reach "
        + "another host"

    @Test func aTokenHoldsExactlyTheRFCsCharacters() {
        for byte in UInt8.min...UInt8.max {
            let text = String(decoding: [UInt8(ascii: "a"), byte], as: UTF8.self)
            #expect(HTTPSyntax.isToken(text) == Self.tchar.contains(byte), "byte \(byte)")
        }
        #expect(!HTTPSyntax.isToken(""))
        #expect(HTTPSyntax.isToken("X-Request-ID"))
        #expect(!HTTPSyntax.isToken("Bad Name"))
    }

    /// A host with an optional port: letters, digits and `-._:[]`, byte by byte, 1 to 255 of them.
    @Test func aHostAndPortHoldsOnlyItsCharacters() {
        let allowed = Set("-._:[]0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8.min...UInt8.max {
            let text = String(decoding: [UInt8(ascii: "h"), byte], as: UTF8.self)
            #expect(HTTPSyntax.isHostAndPort(text) == allowed.contains(byte), "byte \(byte)")
        }
        for host in ["api.example.com", "10.0.0.1:8080", "[::1]:443", String(repeating: "a", count: 255)] {
            #expect(HTTPSyntax.isHostAndPort(host), "\(host)")
        }
        for host in ["", String(repeating: "a", count: 256), "user@host", "http://host", "host/path", "h\u{e9}"] {
            #expect(!HTTPSyntax.isHostAndPort(host), "\(host)")
        }
    }

    @Test(
        arguments: [
            ("/a?b=1", nil),
            ("http://h:1/x", nil),
            ("HTTPS://h/x", nil),
            ("https://h", nil),
            ("http:///x", "names no host after http://"),
            ("https://?x", "names no host after https://"),
            ("http://a\\b@c/", "holds a backslash in its host"),
            ("a/b", Self.neither),
            ("ftp://h/x", Self.neither),
            ("/a b", "holds spaces or control characters; percent-encode them"),
        ] as [(String, String?)])
    func aURLsFormIsJudgedOnItsBytes(_ url: String, _ problem: String?) {
        #expect(HTTPSyntax.urlFormProblem(url) == problem)
    }
}
