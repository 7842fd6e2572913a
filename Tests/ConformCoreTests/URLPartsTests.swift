import ConformCore
import Foundation
import Testing

/// URLs and queries are split on their bytes; these pin what the split gives, including the corner cases.
@Suite struct URLPartsTests {
    @Test func splitsOriginPathAndQuery() {
        let parts = URLParts("http://h:8/a/b?x=1&y#frag")
        #expect(parts.origin == "http://h:8")
        #expect(parts.path == "/a/b")
        #expect(parts.query == "x=1&y")
        #expect(URLParts("http://h:8").path == "/")
        #expect(URLParts("http://h?q").origin == "http://h")
        #expect(URLParts("http://h?q").query == "q")
        // Not a scheme before `://`: an origin-form target keeps its whole path and query.
        #expect(URLParts("/a?next=http://b/").origin == "")
        #expect(URLParts("/a?next=http://b/").query == "next=http://b/")
        #expect(URLParts("1x://h/p").origin == "")
        #expect(URLParts("x:/p").origin == "")
        #expect(URLParts("/é/p?q=é").path == "/é/p")
        #expect(URLParts("/é/p?q=é").query == "q=é")
        #expect(URLParts("").path == "/")
    }

    @Test func findsQueryValuesDecodedAsStringsCompare() {
        let request = HTTPRequest(method: .get, url: "http://h/p?&a=1&b&%63=3&d=%2F%zz&a=2&e=x=y#f=9")
        #expect(request.queryValue("a") == "1")
        #expect(request.queryValue("b") == "")
        #expect(request.queryValue("c") == "3")
        #expect(request.queryValue("d") == "/%zz")
        #expect(request.queryValue("e") == "x=y")
        #expect(request.queryValue("f") == nil)
        #expect(request.queryValue("") == nil)
        #expect(HTTPRequest(method: .get, url: "/p").queryValue("a") == nil)
        // A `?` after the fragment's `#` starts no query; a name alone has the empty value; `é` is not `e`.
        #expect(HTTPRequest(method: .get, url: "/p#x?a=1").queryValue("a") == nil)
        #expect(HTTPRequest(method: .get, url: "/p?a").queryValue("a") == "")
        #expect(HTTPRequest(method: .get, url: "/p?é=1&e=2").queryValue("e") == "2")
        #expect(HTTPRequest(method: .get, url: "/p?e=2&é=1").queryValue("é") == "1")
        // Names compare as Swift strings do: the Kelvin sign is canonically equivalent to `K`.
        #expect(HTTPRequest(method: .get, url: "/p?K=1").queryValue("\u{212A}") == "1")
        #expect(HTTPRequest(method: .get, url: "/p?%E2%84%AA=1").queryValue("K") == "1")
    }

    @Test func compactBytesAreTheSerializedText() throws {
        let texts = [
            #"{"b":1,"a":[true,null,1.5,"x\n\u00e9\u0001\"\\\t\r\b\f"],"c":{},"d":[],"e":-0.0,"f":1e300}"#,
            #""plain""#, "12", "[{}]",
        ]
        for text in texts {
            let value = try JSONValue.parse(text)
            #expect(String(decoding: value.compactUTF8(), as: UTF8.self) == value.serialized(), "\(text)")
        }
        let response = HTTPResponse.json(200, ["k": .string("v\u{7}")])
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"k":"v\u0007"}"#)
        #expect(response.headerFields["Content-Length"] == "15")
    }

    /// The target appended in one piece is the prefix followed by the split's target, for every form of URL:
    /// absolute or origin-form, with or without path, query and fragment, a scheme-like text inside the query.
    @Test func theTargetAppendedInOnePieceIsTheSplitsTarget() {
        let urls = [
            "http://h:1/a/b?x=1&y=2", "https://h/a#f", "http://h", "http://h?q", "http://h#f", "HTTP://H/P",
            "/a?next=http://b/", "/p#x?a=1", "/", "/é/ü?ç=1", "?only", "", "a+b.c-d://host/path", "mailto:x@y",
            "http:/h/p", "http://h/p?", "//h/p", "/a%2Fb?%zz#",
        ]
        for url in urls {
            #expect(
                URLParts.appendingTarget(of: url, to: "http://t:9") == "http://t:9" + URLParts(url).target, "\(url)")
        }
        // A text not stored contiguously takes the split's way, to the same result.
        let bridged = String(describing: NSString(string: "http://h/p?q=1"))
        #expect(URLParts.appendingTarget(of: bridged, to: "") == "/p?q=1")
    }

}
