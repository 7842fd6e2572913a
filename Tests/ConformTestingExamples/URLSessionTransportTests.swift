import ConformCore
import ConformServer
import Foundation
import Testing

/// What the example transport does to requests and responses on the wire, seen by a server that echoes them: the
/// checks a vendor runs on their own transport before trusting a certification made through it.
@Suite struct URLSessionTransportTests {
    /// Answers every request with what it received; `/redirect` answers 302 instead.
    struct Echo: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            if request.path == "/redirect" {
                return HTTPResponse(status: 302, headerFields: ["Location": "/elsewhere", "Content-Length": "0"])
            }
            let fields = request.headerFields.map { JSONValue.array([.string($0.name), .string($0.value)]) }
            return .json(
                200,
                .object(
                    JSONObject([
                        ("method", .string(request.method.rawValue)), ("target", .string(request.target)),
                        ("fields", .array(fields)), ("body", .string(String(decoding: request.body, as: UTF8.self))),
                    ])),
                headers: ["X-Echo": "one", "Set-Cookie": "session=1"])
        }
    }

    func echo(_ request: HTTPRequest) async throws -> (response: HTTPResponse, received: JSONValue) {
        let server = try HTTPServer(handler: Echo())
        try server.start()
        defer { server.stop() }
        var request = request
        request.url = server.baseURL + request.url
        let response = try await URLSessionTransport().send(request)
        return (response, try JSONValue.parse(response.body))
    }

    func fields(_ received: JSONValue) -> [(String, String)] {
        (received["fields"]?.arrayValue ?? []).compactMap { pair in
            guard let name = pair[0]?.stringValue, let value = pair[1]?.stringValue else { return nil }
            return (name.lowercased(), value)
        }
    }

    @Test func methodTargetFieldsAndBodyArriveAsSent() async throws {
        let body = #"{"userIdentity":{"externalUserId":"ana"}}"#
        let (response, received) = try await echo(
            HTTPRequest(
                method: .post, url: "/mobile/1/appinstance/a%2Fb/personalize?forceDepersonalize=true&keepAsLead=false",
                headerFields: [
                    "Authorization": "App conform-app-code", "Content-Type": "application/json",
                    "X-HTTP-Method-Override": "PATCH", "pushregistrationid": "abc",
                ],
                body: Data(body.utf8)))
        #expect(received["method"]?.stringValue == "POST")
        #expect(
            received["target"]?.stringValue
                == "/mobile/1/appinstance/a%2Fb/personalize?forceDepersonalize=true&keepAsLead=false")
        #expect(received["body"]?.stringValue == body)
        let sent = fields(received)
        for (name, value) in [
            ("authorization", "App conform-app-code"), ("content-type", "application/json"),
            ("x-http-method-override", "PATCH"), ("pushregistrationid", "abc"),
        ] {
            #expect(sent.filter { $0.0 == name }.map(\.1) == [value], "\(name) in \(sent)")
        }
        #expect(response.status == 200)
        #expect(response.headerFields["X-Echo"] == "one")
        #expect(response.headerFields["Content-Type"] == "application/json")
        #expect(response.headerFields["Content-Length"] == String(response.body.count))
    }

    @Test func aBodyIsSentWithEveryMethodButGet() async throws {
        for method in [HTTPMethod.post, .delete, .put, .patch, .options] {
            let (_, received) = try await echo(HTTPRequest(method: method, url: "/x", body: Data("{}".utf8)))
            #expect(received["method"]?.stringValue == method.rawValue)
            #expect(received["body"]?.stringValue == "{}", "\(method.rawValue) lost its body")
        }
        // URLSession refuses a body on GET; the transport says so instead of sending the request without it.
        await #expect(throws: TransportError.self) {
            try await echo(HTTPRequest(method: .get, url: "/x", body: Data("{}".utf8)))
        }
        let (_, plain) = try await echo(HTTPRequest(method: .get, url: "/x"))
        #expect(plain["method"]?.stringValue == "GET")
    }

    @Test func redirectsAndCookiesAreLeftToTheSuites() async throws {
        let (first, _) = try await echo(HTTPRequest(method: .get, url: "/x"))
        #expect(first.headerFields["Set-Cookie"] == "session=1")
        let server = try HTTPServer(handler: Echo())
        try server.start()
        defer { server.stop() }
        let transport = URLSessionTransport()
        let redirect = try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/redirect"))
        #expect(redirect.status == 302)
        #expect(redirect.headerFields["Location"] == "/elsewhere")
        let again = try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/x"))
        let received = try JSONValue.parse(again.body)
        #expect(!fields(received).contains { $0.0 == "cookie" }, "the session stored a cookie: \(fields(received))")
    }

    /// Records what URLSession adds on its own, so the documentation can say it.
    @Test func fieldsURLSessionAddsAreOnlyThese() async throws {
        let (_, received) = try await echo(
            HTTPRequest(
                method: .post, url: "/x", headerFields: ["Content-Type": "application/json"], body: Data("{}".utf8)))
        let added = Set(fields(received).map(\.0)).subtracting(["content-type"])
        #expect(added.isSubset(of: URLSessionTransport.addedFieldNames), "URLSession added \(added.sorted())")
    }
}
