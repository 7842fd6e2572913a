import ConformCore
import Foundation

/// Answers every request with the same small JSON document, like a static file (a POST gets its body back unless
/// `answer` is given, which every request then gets).
struct StaticJSONHandler: HTTPHandler {
    static let body = Data(#"{"status":"ok","service":"conform-bench","items":[1,2,3]}"#.utf8)
    var answer: Data?

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if let answer {
            return HTTPResponse(status: 200, headerFields: ["Content-Type": "application/json"], body: answer)
        }
        if request.method == .post {
            return HTTPResponse(status: 200, headerFields: ["Content-Type": "application/json"], body: request.body)
        }
        return HTTPResponse(status: 200, headerFields: ["Content-Type": "application/json"], body: Self.body)
    }
}

/// Runs `count` exchanges one after another over one transport and reports the cost of each.
enum SequentialClient {
    struct Result {
        var seconds: Double
        var reused: Int
        var failures: Int
    }

    static func run(url: String, count: Int, concurrency: Int) async -> Result {
        let transport = CurlTransportFactory.make()
        let start = ContinuousClock.now
        let (reused, failures) = await withTaskGroup(of: (Int, Int).self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var reused = 0
                    var failures = 0
                    for _ in stride(from: worker, to: count, by: concurrency) {
                        do {
                            let response = try await transport.send(HTTPRequest(method: .get, url: url))
                            if response.status != 200 { failures += 1 }
                            if response.timing?.reusedConnection == true { reused += 1 }
                        } catch {
                            failures += 1
                        }
                    }
                    return (reused, failures)
                }
            }
            return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Result(seconds: seconds, reused: reused, failures: failures)
    }
}
