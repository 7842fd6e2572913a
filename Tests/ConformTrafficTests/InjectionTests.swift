import ConformCore
import ConformCurl
import ConformServer
import Foundation
import Synchronization
import Testing

@testable import ConformTraffic

/// Methods and header fields read from recordings and HARs are checked before they reach the wire: a CR or LF
/// in them would otherwise smuggle a second request to the target.
@Suite struct InjectionTests {
    static let smuggledMethod = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nDELETE"

    func line(method: String = "GET", url: String = "/mobile/1/x", headers: String = "[]") -> String {
        let method = JSONValue.string(method).serialized()
        let url = JSONValue.string(url).serialized()
        return #"{"seq":1,"flow":"f","upstream":"mobile","startedAt":"2026-01-05T09:14:02.311Z","durationMs":1,"#
            + #""request":{"method":\#(method),"url":\#(url),"headers":\#(headers)},"response":{"status":200}}"#
    }

    @Test(arguments: [
        (
            Self.smuggledMethod, "/mobile/1/x", "[]",
            "method 'GET /A HTTP/1.1\\r\\nHOST: X\\r\\n\\r\\nDELETE' is not an HTTP token"
        ),
        ("GET", "/x HTTP/1.1\r\nHost: y", "[]", "URL '/x HTTP/1.1\\r\\nHost: y' holds spaces or control characters"),
        ("GET", "/x", #"[["X-A","1\r\nX-Injected: 1"]]"#, "header X-A holds a line break or NUL"),
        ("GET", "/x", #"[["X-A\r\nX-B","1"]]"#, "header name 'X-A\\r\\nX-B' is not an HTTP token"),
        ("GET", "/x", #"[["X-A","a\u0000b"]]"#, "header X-A holds a line break or NUL"),
    ])
    func recordedRequestsThatWouldSplitAreRefused(
        _ method: String, _ url: String, _ headers: String, _ expected: String
    ) {
        #expect {
            _ = try RecordedExchange(jsonLine: Array(line(method: method, url: url, headers: headers).utf8))
        } throws: { error in
            let error = error as? RecordingLineError
            return error?.path == "$.request" && error?.message.contains(expected) == true
        }
    }

    @Test func harEntriesThatWouldSplitAreRefused() throws {
        let har =
            #"{"log":{"version":"1.2","entries":[{"startedDateTime":"2026-01-05T09:14:02.311Z","time":1,"#
            + #""request":{"method":"GET\r\nX: y","url":"https://m.invalid/mobile/1/x","headers":[]},"#
            + #""response":{"status":200,"headers":[],"content":{"size":0,"text":""}}}]}}"#
        let document = try HARDocument(Data(har.utf8), file: "x.har")
        #expect(try importedHAR(Data(har.utf8), file: "x.har").isEmpty)
        #expect(document.skippedCount == 1)
        #expect(document.skipped.first?.message.contains("is not an HTTP token") == true)
    }

    /// Even a request built in memory (a template rendering a CRLF) never reaches the server as two requests.
    @Test func theCurlTransportSendsNothingForASplittingRequest() async throws {
        let counter = CountingHandler()
        let server = try HTTPServer(handler: counter)
        try server.start()
        defer { server.stop() }
        // Absolute URLs: curl itself is under test, not the rebasing in front of it.
        let transport = CurlTransport()
        for request in [
            HTTPRequest(method: HTTPMethod(Self.smuggledMethod), url: server.baseURL + "/a"),
            HTTPRequest(
                method: .get, url: server.baseURL + "/a", headerFields: ["X-A": "1\r\n\r\nGET /b HTTP/1.1\r\nX: y"]),
        ] {
            await #expect(throws: TransportError.self) { _ = try await transport.send(request) }
        }
        let fine = try await transport.send(HTTPRequest(method: .get, url: server.baseURL + "/fine"))
        #expect(fine.status == 200)
        #expect(counter.paths == ["/fine"])
    }
}

/// Counts the requests a server received.
final class CountingHandler: HTTPHandler {
    private let seen = Mutex<[String]>([])
    var paths: [String] { seen.withLock { $0 } }
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        seen.withLock { $0.append(request.path) }
        return HTTPResponse(status: 200)
    }
}
