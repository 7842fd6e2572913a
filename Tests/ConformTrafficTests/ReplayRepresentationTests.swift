import CZlib
import ConformCore
import ConformCurl
import ConformReference
import ConformServer
import Foundation
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// A replay against a server that compresses its answers: the coding and a `Vary` that names only
/// `Accept-Encoding` are representation, not behaviour; any other name in `Vary` still is.
@Suite struct ReplayRepresentationTests {
    /// The reference, with every body deflated (zlib's `compress2`) and `Vary` set as asked.
    struct Compressing: HTTPHandler {
        let reference = ReferenceImplementation()
        let vary: String

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            var response = reference.handle(request)
            guard !response.body.isEmpty else { return response }
            var size = compressBound(uLong(response.body.count))
            var packed = [UInt8](repeating: 0, count: Int(size))
            let status = response.body.withUnsafeBytes { raw in
                compress2(&packed, &size, raw.bindMemory(to: UInt8.self).baseAddress, uLong(raw.count), 6)
            }
            precondition(status == Z_OK)
            response.body = Data(packed.prefix(Int(size)))
            response.headerFields["Content-Encoding"] = "deflate"
            response.headerFields["Content-Length"] = String(response.body.count)
            response.headerFields["Vary"] = vary
            return response
        }
    }

    func replay(vary: String) async throws -> ReplaySummary {
        let server = try HTTPServer(handler: Compressing(vary: vary))
        try server.start()
        defer { server.stop() }
        let noise = NoiseRules([.path(JSONPathPattern("$..sendDateTime")!, reason: nil)])
        return try await Replayer(
            transport: CurlTransport(timeout: .seconds(30)), noise: noise,
            options: ReplayOptions(origins: ["*": server.baseURL])
        ).replay(readAll(SampleRecordingTests.sampleDirectory()))
    }

    @Test func aCompressingServerBehavesAsTheRecordedOne() async throws {
        let summary = try await replay(vary: "Accept-Encoding")
        #expect(summary.total == 16 && summary.allPassed, "\(summary.mismatches)")
    }

    @Test func aVaryOnAnotherHeaderIsStillADifference() async throws {
        let summary = try await replay(vary: "Accept-Encoding, Authorization")
        let paths = Set(summary.mismatches.flatMap(\.differences).map(\.path))
        #expect(summary.mismatched > 0 && paths == ["header Vary"], "\(paths)")
    }
}
