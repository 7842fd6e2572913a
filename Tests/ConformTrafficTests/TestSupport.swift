import ConformCore
import ConformMobileMessaging
import Foundation

@testable import ConformFlowCheck
@testable import ConformTraffic

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
func testRedactor(_ policy: RedactionPolicy = RedactionPolicy(profile: .mobileMessaging)) -> Redactor {
    Redactor(policy: policy, digest: HMACKeyedDigest(key: Array("test-key".utf8)))
}

func readAll(_ path: String) throws -> [RecordedExchange] {
    let reader = try RecordingReader(path: path)
    var out: [RecordedExchange] = []
    while let e = try reader.next() { out.append(e) }
    return out
}

extension FlowCheckConfiguration {
    /// The reference's four applications with Mobile Messaging's endpoints: what the tests check traces against.
    static let reference = FlowCheckConfiguration(profile: .mobileMessaging)
}

/// A HAR's readable entries as exchanges, in file order, read in memory (what tests compare against).
func importedHAR(_ data: Data, file: String = "<har>", attachments: HAR.Attachments? = nil) throws(HARError)
    -> [RecordedExchange]
{
    let document = try HARDocument(data, file: file, attachments: attachments)
    var out: [RecordedExchange] = []
    for index in document.readable { out.append(try document.exchange(index)) }
    return out
}

/// A HAR's exchanges and app events, in trace order, read in memory.
func importedHARTrace(_ data: Data, file: String = "<har>") throws(HARError) -> [TraceRecord] {
    try HARDocument(data, file: file).records().all()
}
