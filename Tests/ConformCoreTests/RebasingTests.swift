import ConformCore
import Testing

/// A relayed request goes to the configured origin and nowhere else, whatever its URL says.
@Suite struct RebasingTests {
    @Test(arguments: [
        ("/mobile/1/appinstance?ri=true", "http://up:8080/mobile/1/appinstance?ri=true"),
        ("http://mobile.conform.invalid/mobile/1/x", "http://up:8080/mobile/1/x"),
        // The authority of a recorded absolute URL (user info included) is dropped; only its path is kept.
        ("http://mobile.invalid@127.0.0.1:9/x", "http://up:8080/x"),
        // An empty first segment stays a path on the base's host.
        ("//127.0.0.1:9/x", "http://up:8080//127.0.0.1:9/x"),
        ("/a?next=http://127.0.0.1:9/", "http://up:8080/a?next=http://127.0.0.1:9/"),
    ])
    func keepsTheBaseOrigin(url: String, expected: String) throws {
        let request = HTTPRequest(method: .get, url: url)
        let rebased = try request.rebased(onto: "http://up:8080/")
        #expect(rebased.url == expected)
        #expect(URLParts(rebased.url).origin == "http://up:8080")
    }

    /// Glued onto `http://up:8080` each would have named another host (`@127.0.0.1:9`, `up:8080evil.example`, …).
    @Test(arguments: ["@127.0.0.1:9/path", "evil.example/x", ".evil.example/x", ":9/x", "127.0.0.1:9/x", "", "http://"])
    func refusesWhatWouldLeaveIt(url: String) {
        #expect(throws: RequestTargetError.self) {
            _ = try HTTPRequest(method: .get, url: url).rebased(onto: "http://up:8080")
        }
    }

    @Test func refusesTargetsWithControlCharacters() throws {
        let error = try #require(
            throws: RequestTargetError.self,
            performing: { try HTTPRequest(method: .get, url: "/x\u{1b}]0;t\u{07}").rebased(onto: "http://up") })
        #expect(error.description.contains("holds spaces or control characters"))
        #expect(!error.description.contains("\u{1b}"))
    }

    @Test(arguments: ["ftp://up", "up:8080", "http://", "http://up?x=1", "http://up#f", "http://u p"])
    func refusesBasesThatAreNotOrigins(base: String) {
        #expect(HTTPSyntax.baseURLProblem(base) != nil)
        #expect(throws: RequestTargetError.self) { _ = try HTTPRequest(method: .get, url: "/x").rebased(onto: base) }
    }

    @Test func theWireCheckRefusesURLsThatAreNeitherAbsoluteNorOriginForm() {
        #expect(HTTPSyntax.problem(in: HTTPRequest(method: .get, url: "@127.0.0.1:9/x")) != nil)
        #expect(HTTPSyntax.problem(in: HTTPRequest(method: .get, url: "HTTPS://Up/x")) == nil)
        #expect(HTTPSyntax.problem(in: HTTPRequest(method: .get, url: "/x")) == nil)
    }
}
