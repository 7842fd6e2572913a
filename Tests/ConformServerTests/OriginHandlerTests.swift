import ConformCore
import ConformReference
import ConformServer
import Testing

/// The base URL the reference announces (M12) carries the scheme and host a client reached it by.
struct OriginHandlerTests {
    func baseURL(_ handler: OriginHandler, headers: HTTPFields) throws -> String? {
        var fields = headers
        fields["Authorization"] = "App conform-app-code"
        let response = handler.handle(HTTPRequest(method: .get, url: "/mobile/1/baseurl", headerFields: fields))
        #expect(response.status == 200)
        return try JSONValue.parse(response.body)["baseUrl"]?.stringValue
    }

    let reference = ReferenceImplementation(configuration: .default)

    @Test func theListenersSchemeAndTheHostHeader() throws {
        let https = OriginHandler(reference, scheme: "https")
        #expect(try baseURL(https, headers: ["Host": "127.0.0.1:8443"]) == "https://127.0.0.1:8443")
        let http = OriginHandler(reference, scheme: "http")
        #expect(try baseURL(http, headers: ["Host": "[::1]:8080"]) == "http://[::1]:8080")
    }

    @Test func forwardedHeadersOnlyFromATrustedFront() throws {
        let forwarded: HTTPFields = [
            "Host": "10.0.0.5:8080", "X-Forwarded-Proto": "https, http", "X-Forwarded-Host": "api.example.com",
        ]
        let untrusted = OriginHandler(reference, scheme: "http")
        #expect(try baseURL(untrusted, headers: forwarded) == "http://10.0.0.5:8080")
        let trusted = OriginHandler(reference, scheme: "http", trustForwarded: true)
        #expect(try baseURL(trusted, headers: forwarded) == "https://api.example.com")
        // A forwarded value that is no scheme or no plain host is not believed.
        let hostile: HTTPFields = [
            "Host": "10.0.0.5:8080", "X-Forwarded-Proto": "javascript", "X-Forwarded-Host": "evil.example/path@x",
        ]
        #expect(try baseURL(trusted, headers: hostile) == "http://10.0.0.5:8080")
    }

    @Test func aPublicOriginWins() throws {
        let fronted = OriginHandler(reference, scheme: "http", publicOrigin: "https://push.example.org")
        #expect(
            try baseURL(fronted, headers: ["Host": "10.0.0.5", "X-Forwarded-Host": "x"]) == "https://push.example.org")
    }
}
