import Testing

@testable import ConformCore

/// The origin of a URL, read as bytes on the runner's hot path, is the one the Unicode reading gives, and a URL's
/// form is judged the same way whatever its case.
@Suite struct OriginPolicyTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/mobile/1/appinstance?ri=true", "http://127.0.0.1:8080"),
        ("HTTPS://Mobile.Example.COM:443/x", "https://mobile.example.com"),
        ("http://host:80", "http://host"),
        ("https://host:80/", "https://host:80"),
        ("http://user:pw@Host:8080/p", "http://host:8080"),
        ("http://a@b@host/x", "http://host"),
        ("http://host?q=http://other/", "http://host"),
        ("http://host#frag/x", "http://host"),
        ("http://[::1]:9/x", "http://[::1]:9"),
        ("hTtP://host:8080#x", "http://host:8080"),
        ("http://Bücher.example/x", "http://bücher.example"),
    ])
    func originOfAnAbsoluteURL(url: String, origin: String) {
        #expect(OriginPolicy.origin(of: url) == origin)
        #expect(OriginPolicy.unicodeOrigin(of: url) == origin)
    }

    @Test(arguments: [
        "/mobile/1/appinstance", "", "h", "http", "http:", "http:/host", "http://", "http://user@", "http:///x",
        "ftp://host/x", "httpx://host", "https:x", "hello", "0f8fad5b-d9cb-469f-a165-70867728950e",
        "/a?next=http://b/", "#http://host",
    ])
    func noOriginForAnythingElse(url: String) {
        #expect(OriginPolicy.origin(of: url) == nil)
        #expect(OriginPolicy.unicodeOrigin(of: url) == nil)
    }

    @Test(
        arguments: [
            ("http://host/x", nil),
            ("HTTPS://host", nil),
            ("/x", nil),
            ("http:///x", "names no host after http://"),
            ("HTTPS://?q", "names no host after https://"),
            ("http://ho\\st/x", "holds a backslash in its host"),
            ("http://host/a\\b", nil),
            ("http://a b/", "holds spaces or control characters; percent-encode them"),
            (
                "ftp://host/x",
                "is neither origin-form (/path?query) nor absolute (http://host/path); "
                    + "joined to a base URL it would reach another host"
            ),
        ] as [(String, String?)])
    func urlForm(url: String, problem: String?) {
        #expect(HTTPSyntax.urlFormProblem(url) == problem)
    }
}
