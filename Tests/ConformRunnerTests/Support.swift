import ConformCore
import ConformMobileMessaging
import ConformRunner
import Foundation
import Synchronization
import Testing

/// A small registration service for runner tests: POST /reg mints ids, GET /reg/ID reads them, /flaky succeeds on the third call.
final class FakeService: HTTPHandler {
    let counter = Mutex(0)
    let flakyCalls = Mutex(0)

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch (request.method, request.path) {
        case (.post, "/reg"):
            let id = counter.withLock { n -> Int in
                n += 1
                return n
            }
            return .json(200, ["pushRegId": .string("reg-\(id)")])
        case (.get, let p) where p.hasPrefix("/reg/"):
            return .json(200, ["pushRegId": .string(String(p.dropFirst(5))), "ok": true])
        case (_, "/flaky"):
            let n = flakyCalls.withLock { n -> Int in
                n += 1
                return n
            }
            return .json(n >= 3 ? 200 : 503, ["attempt": .int(n)])
        case (_, "/garbage"):
            return HTTPResponse(
                status: 200, headerFields: ["Content-Type": "application/json"], body: Data("{not json".utf8))
        default:
            return .json(
                404, ["requestError": ["serviceException": ["messageId": "NOT_FOUND", "text": "no such path"]]])
        }
    }
}

/// A transport that never answers.
struct HangingTransport: Transport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await Task.sleep(for: .seconds(3600))
        throw TransportError(.timeout, "unreachable")
    }
}

/// A transport that always fails with the given error.
struct FailingTransport: Transport {
    var error: TransportError
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw error }
}

func suite(_ yaml: String, file: String = "test.yaml") throws -> Suite {
    try SuiteLoader(profile: .mobileMessaging).load(bytes: Array(yaml.utf8), file: file)
}

/// Compares `text` with the golden file `name` beside this file; `CONFORM_RECORD_GOLDENS=1` rewrites it.
func expectGolden(_ text: String, _ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")
        .appendingPathComponent(name)
    if ProcessInfo.processInfo.environment["CONFORM_RECORD_GOLDENS"] == "1" {
        try Data(text.utf8).write(to: url)
        return
    }
    guard let golden = FileManager.default.contents(atPath: url.path) else {
        Issue.record(
            "missing golden \(name); run with CONFORM_RECORD_GOLDENS=1 to create it", sourceLocation: sourceLocation)
        return
    }
    #expect(text == String(decoding: golden, as: UTF8.self), sourceLocation: sourceLocation)
}
