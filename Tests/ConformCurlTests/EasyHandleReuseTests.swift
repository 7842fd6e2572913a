import ConformCore
import ConformCurl
import ConformServer
import Foundation
import Synchronization
import Testing

/// An easy handle keeps its lasting options from one exchange to the next and has only the exchange's own set again:
/// whatever method, body or timeout came before, each request goes out as asked and its answer is read whole.
@Suite struct EasyHandleReuseTests {
    /// Answers every request with `METHOD path body-length` and keeps what it saw.
    final class Seen: HTTPHandler, Sendable {
        let requests = Mutex<[String]>([])

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            let line = "\(request.method.rawValue) \(request.path) \(String(decoding: request.body, as: UTF8.self))"
            requests.withLock { $0.append(line) }
            return HTTPResponse(status: 200, headerFields: ["Content-Type": "text/plain"], body: Data(line.utf8))
        }
    }

    @Test func methodsInTurnOnOneTransportGoOutAsAsked() async throws {
        let seen = Seen()
        let server = try HTTPServer(handler: seen)
        try server.start()
        defer { server.stop() }
        // One exchange at a time: each takes the handle the one before gave back.
        let transport = CurlTransport(timeout: .seconds(10))
        let sequence: [(HTTPMethod, String, String, Duration?)] = [
            (.head, "/h", "", nil),
            (.get, "/after-head", "", nil),
            (.post, "/p", "ab", nil),
            (.get, "/after-post", "", nil),
            ("DELETE", "/d", "", nil),
            (.get, "/after-delete", "", nil),
            ("PUT", "/u", "cde", .seconds(5)),
            (.head, "/h2", "", nil),
            (.post, "/after-head", "f", nil),
            ("PATCH", "/x", "", nil),
            ("OPTIONS", "/o", "", .seconds(3)),
            (.get, "/with-body", "q", nil),
            (.get, "/end", "", nil),
        ]
        var answers: [String] = []
        for (method, path, body, timeout) in sequence {
            let response = try await transport.send(
                HTTPRequest(method: method, url: server.baseURL + path, body: Data(body.utf8), timeout: timeout))
            #expect(response.status == 200)
            answers.append(String(decoding: response.body, as: UTF8.self))
        }
        let expected = sequence.map { "\($0.0.rawValue) \($0.1) \($0.2)" }
        #expect(seen.requests.withLock { $0 } == expected)
        // A HEAD's answer has no body; every other answer arrives whole, the ones after a HEAD too.
        #expect(answers == sequence.map { $0.0 == .head ? "" : "\($0.0.rawValue) \($0.1) \($0.2)" })
    }

    /// Answers every request with its header lines (`name: value`, in order) and its body.
    final class Echo: HTTPHandler, Sendable {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            let lines = request.headerFields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
            return HTTPResponse(
                status: 200, headerFields: ["Content-Type": "text/plain"],
                body: Data((lines + "\n\n").utf8) + request.body)
        }
    }

    /// The header lines and the body copy of an exchange are written over the last exchange's on the same handle:
    /// a longer list than any before (its text grows while it is written), then a shorter one, a larger body, then a
    /// smaller one and none. Each request goes out with exactly its own headers and body.
    @Test func headerLinesAndBodiesOfOneHandleAreEachExchangesOwn() async throws {
        let server = try HTTPServer(handler: Echo())
        try server.start()
        defer { server.stop() }
        let transport = CurlTransport(timeout: .seconds(10))
        let many = (0..<40).map { ("X-Field-\($0)", String(repeating: "v\($0)-", count: 12)) }
        let cases: [(fields: [(String, String)], body: String)] = [
            ([("X-One", "1")], "short"),
            (many, String(repeating: "large body ", count: 300)),
            ([("X-Two", "2"), ("X-Three", "")], "tiny"),
            ([], ""),
            (Array(many.prefix(3)), String(repeating: "b", count: 2_000)),
        ]
        for (fields, body) in cases {
            let request = HTTPRequest(
                method: body.isEmpty ? .get : .post, url: server.baseURL + "/echo",
                headerFields: HTTPFields(fields.map { HTTPFields.Field(name: $0.0, value: $0.1) }),
                body: Data(body.utf8))
            let response = try await transport.send(request)
            let text = String(decoding: response.body, as: UTF8.self)
            let parts = text.components(separatedBy: "\n\n")
            #expect(parts.count == 2)
            let sent = parts[0].split(separator: "\n").map(String.init).filter { $0.hasPrefix("X-") }
            #expect(sent == fields.map { "\($0.0): \($0.1)" })
            #expect(parts.last == body)
        }
    }
}
