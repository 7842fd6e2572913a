import ConformCore
import Foundation

@testable import ConformTraffic

/// A fresh directory under the system temporary directory, removed by the caller.
func temporaryDirectory(_ name: String = #function) -> String {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    let path = NSTemporaryDirectory() + "conform-traffic-\(safe)-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The folder of fixtures beside this file.
func fixturePath(_ name: String, file: StaticString = #filePath) -> String {
    URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("Fixtures")
        .appendingPathComponent(
            name
        ).path
}

func exchange(
    seq: Int = 1, method: HTTPMethod = .post, url: String, headers: HTTPFields = [:], body: String = "",
    status: Int = 200,
    responseHeaders: HTTPFields = ["Content-Type": "application/json"], responseBody: String = "", flow: String = "f"
) -> RecordedExchange {
    RecordedExchange(
        seq: seq, flow: flow, upstream: url.contains("/mobile/") ? "mobile" : "backend",
        startedAt: Date(timeIntervalSince1970: 1_767_600_000.123), durationMs: 1.5,
        request: HTTPRequest(method: method, url: url, headerFields: headers, body: Data(body.utf8)),
        response: HTTPResponse(status: HTTPStatus(status), headerFields: responseHeaders, body: Data(responseBody.utf8))
    )
}

/// A keyed digest with a fixed key, so pseudonyms in tests are stable within one test.
func testRedactor(_ policy: RedactionPolicy = .default) -> Redactor {
    Redactor(policy: policy, digest: HMACKeyedDigest(key: Array("test-key".utf8)))
}

func readAll(_ path: String) throws -> [RecordedExchange] {
    let reader = try RecordingReader(path: path)
    var out: [RecordedExchange] = []
    while let e = try reader.next() { out.append(e) }
    return out
}
