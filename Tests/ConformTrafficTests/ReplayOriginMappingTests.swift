import ConformCore
import ConformCurl
import ConformMobileMessaging
import ConformReport
import ConformServer
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// An implementation that names its own origin (M12's baseUrl, New-Base-URL, Location) answers a replay with the
/// target's origin where the recording holds the recorded one: the origins are mapped, not compared.
@Suite struct ReplayOriginMappingTests {
    /// Answers with its own base URL, or a fixed other one.
    struct NamesItself: HTTPHandler {
        let origin: String
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            var response = HTTPResponse.json(200, ["baseUrl": .string(origin), "next": .string(origin + "/mobile/1")])
            response.headerFields["New-Base-URL"] = origin
            return response
        }
    }

    func recorded() -> RecordedExchange {
        let origin = "http://mobile.recorded.example:8080"
        var response = HTTPResponse.json(200, ["baseUrl": .string(origin), "next": .string(origin + "/mobile/1")])
        response.headerFields["New-Base-URL"] = origin
        return RecordedExchange(
            seq: 1, flow: "f", upstream: "mobile", startedAt: Date(), durationMs: 1,
            request: HTTPRequest(method: .get, url: origin + "/mobile/1/baseurl"), response: response)
    }

    @Test func theTargetNamingItselfIsNoDifference() async throws {
        let box = OriginBox()
        let server = try HTTPServer(handler: SelfNaming(box: box))
        try server.start()
        defer { server.stop() }
        box.set(server.baseURL)
        let summary = try await Replayer(
            transport: CurlTransport(timeout: .seconds(30)),
            options: ReplayOptions(profile: .mobileMessaging, origins: ["*": server.baseURL])
        ).replay([recorded()])
        #expect(summary.total == 1 && summary.passed == 1, "\(summary.mismatches)")
    }

    @Test func anotherOriginStillDiffers() async throws {
        let server = try HTTPServer(handler: NamesItself(origin: "http://elsewhere.example"))
        try server.start()
        defer { server.stop() }
        let summary = try await Replayer(
            transport: CurlTransport(timeout: .seconds(30)),
            options: ReplayOptions(profile: .mobileMessaging, origins: ["*": server.baseURL])
        ).replay([recorded()])
        #expect(summary.mismatched == 1)
        let paths = summary.mismatches.first?.differences.map(\.path) ?? []
        #expect(paths.contains("header New-Base-URL"))
        #expect(paths.contains("$.baseUrl"))
    }

    @Test func anOriginIsReplacedOnlyWhole() {
        let response = HTTPResponse(
            status: 200, body: Data(#"["http://a.example", "http://a.example/x", "http://a.example.org"]"#.utf8))
        let mapped = Replayer.mapOrigin(response, from: "http://a.example", to: "http://b:1")
        #expect(
            String(decoding: mapped.body, as: UTF8.self) == #"["http://b:1", "http://b:1/x", "http://a.example.org"]"#)
    }

    /// Header values naming the origin are mapped in place, the others kept in their order; a body that is not UTF-8
    /// is left as it is even where its bytes hold the origin.
    @Test func headersAreMappedInPlaceAndABinaryBodyIsLeftAlone() {
        var binary = Data([0xFF, 0xFE])
        binary.append(Data("http://a.example/x".utf8))
        let response = HTTPResponse(
            status: 301,
            headerFields: HTTPFields([
                .init(name: "Location", value: "http://a.example/next"), .init(name: "X-Other", value: "same"),
                .init(name: "Link", value: "<http://a.example.org/>; rel=x"),
                .init(name: "Content-Location", value: "http://a.example"),
            ]), body: binary)
        let mapped = Replayer.mapOrigin(response, from: "http://a.example", to: "http://b:1")
        #expect(mapped.body == binary)
        #expect(
            Array(mapped.headerFields) == [
                .init(name: "Location", value: "http://b:1/next"), .init(name: "X-Other", value: "same"),
                .init(name: "Link", value: "<http://a.example.org/>; rel=x"),
                .init(name: "Content-Location", value: "http://b:1"),
            ])
        let untouched = HTTPResponse(status: 200, headerFields: ["X-A": "http://a.example.org"], body: Data("{}".utf8))
        #expect(Replayer.mapOrigin(untouched, from: "http://a.example", to: "http://b:1") == untouched)
    }

    /// Only an answer holding `://` somewhere can name an origin: the others are not searched.
    @Test func onlyAnAnswerHoldingASchemeSeparatorIsSearched() {
        #expect(!Replayer.mayNameAnOrigin(HTTPResponse(status: 200, body: Data(#"{"a":"b:/c"}"#.utf8))))
        #expect(!Replayer.mayNameAnOrigin(HTTPResponse(status: 200, headerFields: ["X": "a:/"], body: Data())))
        #expect(Replayer.mayNameAnOrigin(HTTPResponse(status: 200, body: Data(#"{"u":"http://h"}"#.utf8))))
        #expect(Replayer.mayNameAnOrigin(HTTPResponse(status: 200, body: Data("://".utf8))))
        #expect(Replayer.mayNameAnOrigin(HTTPResponse(status: 301, headerFields: ["Location": "https://h/"])))
    }

    /// Answers with the origin the request came to, as a server reads it from its URL.
    struct NamesTheRequestOrigin: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            NamesItself(origin: URLParts(request.url).origin).handle(request)
        }
    }

    @Test func aDiffReadsEachSidesOwnOriginAsTheOthers() async throws {
        let handler = InProcessTransport(NamesTheRequestOrigin())
        let a = RebasedTransport(base: "http://a.example:1", inner: handler)
        let b = RebasedTransport(base: "http://b.example:2", inner: handler)
        let same = try await Differential(
            a: a, b: DeadlineTransport(inner: b, deadline: .seconds(30)),
            options: ReplayOptions(profile: .mobileMessaging)
        ).run([recorded()]
        )
        #expect(same.counts == [.pass: 1], "\(same.steps)")
        // A side naming another origin than its own still differs, in the body and in the header.
        let elsewhere = InProcessTransport(NamesItself(origin: "http://elsewhere.example"))
        let differs = try await Differential(
            a: a, b: RebasedTransport(base: "http://b.example:2", inner: elsewhere),
            options: ReplayOptions(profile: .mobileMessaging)
        )
        .run([recorded()])
        #expect(differs.counts == [.fail: 1])
        let paths = differs.steps.first?.failures.first?.mismatches.map(\.path) ?? []
        #expect(paths.contains("header New-Base-URL") && paths.contains("$.baseUrl"), "\(paths)")
    }

    /// The server's own base URL, known once it listens.
    final class OriginBox: Sendable {
        private let value = Mutex("")
        func set(_ origin: String) { value.withLock { $0 = origin } }
        var origin: String { value.withLock { $0 } }
    }

    struct SelfNaming: HTTPHandler {
        let box: OriginBox
        func handle(_ request: HTTPRequest) -> HTTPResponse { NamesItself(origin: box.origin).handle(request) }
    }
}
