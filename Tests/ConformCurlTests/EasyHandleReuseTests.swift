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
}
