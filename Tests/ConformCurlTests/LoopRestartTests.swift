import ConformCore
import ConformServer
import ConformTestSupport
import Foundation
import Testing

@testable import ConformCurl

/// A loop whose transport went away ends its thread; a server that joins it afterwards starts it again, is served on
/// it, and lets it end again when it stops.
@Suite struct LoopRestartTests {
    @Test func aServerJoiningTheLoopsOfATransportThatWentAwayStartsThemAgain() async throws {
        let upstream = try HTTPServer(handler: JoinedServerTests.EchoTargetHandler())
        try upstream.start()
        defer { upstream.stop() }
        var transport: CurlTransport? = CurlTransport(timeout: .seconds(30), loops: 1)
        // The loop's thread starts with the transport's first exchange.
        let first = try await transport!.send(HTTPRequest(method: .get, url: "\(upstream.baseURL)/first"))
        #expect(first.status == 200)
        let loops = transport!.ioLoops
        let loop = try #require(loops.first as? CurlLoop)
        #expect(!loop.hasExited)
        transport = nil
        #expect(await Eventually.holds { loop.hasExited }, "the loop did not end once its transport went away")

        let handler = AsyncHandlerAdapter { request in
            HTTPResponse(status: 200, headerFields: [:], body: Data(request.target.utf8))
        }
        let server = try HTTPServer(handler: handler, loops: loops)
        #expect(server.joinsLoops)
        try server.start()
        #expect(!loop.hasExited)
        let client = CurlTransport(timeout: .seconds(10))
        for index in 0..<3 {
            let answer = try await client.send(HTTPRequest(method: .get, url: "\(server.baseURL)/again/\(index)"))
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == "/again/\(index)")
        }
        server.stop()
        #expect(await Eventually.holds { loop.hasExited }, "the loop did not end once the server left it")
    }
}
