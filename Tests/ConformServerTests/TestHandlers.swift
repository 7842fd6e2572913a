import ConformCore
import Foundation
import Synchronization

/// Answers every request with a description of what arrived; `POST /echo` returns the body unchanged.
struct EchoHandler: HTTPHandler {
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if request.path == "/echo" {
            return HTTPResponse(
                status: 200, headerFields: ["Content-Type": "application/octet-stream"], body: request.body)
        }
        let headers = JSONValue.array(request.headerFields.map { .array([.string($0.name), .string($0.value)]) })
        return .json(
            200,
            [
                "method": .string(request.method.rawValue), "url": .string(request.url), "headers": headers,
                "bodyLength": .int(request.body.count),
            ],
            headers: ["X-Reply": "one", "x-reply": "two"])
    }
}

/// Reads the fields the echo handler writes.
struct EchoedRequest {
    var method: String
    var url: String
    var headers: [(String, String)]
    var bodyLength: Int

    init(_ response: HTTPResponse) throws {
        let value = try JSONValue.parse(response.body)
        method = value["method"]?.stringValue ?? ""
        url = value["url"]?.stringValue ?? ""
        bodyLength = value["bodyLength"]?.numberValue.map { Int($0) } ?? -1
        headers = (value["headers"]?.arrayValue ?? []).map {
            ($0.arrayValue?.first?.stringValue ?? "", $0.arrayValue?.last?.stringValue ?? "")
        }
    }
}
