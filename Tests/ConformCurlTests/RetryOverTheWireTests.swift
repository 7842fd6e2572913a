import ConformCore
import ConformCurl
import ConformReport
import ConformRunner
import Foundation
import Synchronization
import Testing

/// `--retry` over real sockets: a gateway's page or a reset is sent again and counted; the implementation's own
/// answers never are.
@Suite struct RetryOverTheWireTests {
    static let registered =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 18\r\n\r\n{\"pushRegId\":\"r1\"}"
    static let gatewayPage = "<html><body>Service Unavailable</body></html>"
    static let gateway =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html\r\nContent-Length: \(gatewayPage.utf8.count)\r\n"
        + "Connection: close\r\n\r\n\(gatewayPage)"

    /// A server whose first `failures` connections get `first` (or nothing, when `nil`: closed after the request),
    /// and every later one the registration.
    final class Count: Sendable {
        let value = Atomic<Int>(0)
        func load(ordering _: AtomicLoadOrdering = .relaxed) -> Int { value.load(ordering: .relaxed) }
    }

    func server(failing failures: Int, with first: String?) throws -> (RawServer, Count) {
        let served = Count()
        let server = try RawServer { connection in
            connection.readRequest()
            let n = served.value.add(1, ordering: .relaxed).newValue
            if n > failures {
                connection.write(Self.registered)
            } else if let first {
                connection.write(first)
            }
        }
        return (server, served)
    }

    func suite(_ base: String) throws -> Suite {
        try SuiteLoader().load(
            bytes: Array(
                """
                suite: retried
                title: behind a gateway
                steps:
                  - name: register
                    request: {method: POST, url: "\(base)/mobile/1/appinstance", json: {pushServiceToken: t}}
                    expect: {status: 200, json: {pushRegId: {$type: string}}}
                """.utf8), file: "retried.yaml")
    }

    func run(_ base: String, retries: Int?) async throws -> RunResult {
        let wire = CurlTransport()
        let transport: any Transport =
            retries.map {
                RetryTransport(inner: wire, policy: RetryPolicy(retries: $0, firstDelay: .milliseconds(10)))
            } ?? wire
        return await Runner(transport: transport).run(RunPlan(suites: [try suite(base)], exchangeTimeout: .seconds(5)))
    }

    @Test func aGatewayPageThenTheAnswerPassesWithOneRetryCounted() async throws {
        let (server, served) = try server(failing: 1, with: Self.gateway)
        defer { server.stop() }
        let result = try await run(server.baseURL, retries: 1)
        #expect(result.steps.map(\.verdict) == [.pass])
        #expect(result.steps[0].retries == 1)
        #expect(result.retries.count == 1 && result.retries.steps == 1)
        #expect(result.status == .conforms)
        #expect(served.load(ordering: .relaxed) == 2)
    }

    @Test func aGatewayPageWithoutRetryCouldNotRun() async throws {
        let (server, _) = try server(failing: 1, with: Self.gateway)
        defer { server.stop() }
        let result = try await run(server.baseURL, retries: nil)
        #expect(result.steps.map(\.verdict) == [.error])
        #expect(result.steps[0].retries == 0)
        #expect(result.steps[0].errors.first?.kind == .gatewayUnavailable)
        #expect(result.status == .cannotRun)
    }

    @Test func aGatewayThatStaysDownCouldNotRunAfterEveryRetry() async throws {
        let (server, served) = try server(failing: 10, with: Self.gateway)
        defer { server.stop() }
        let result = try await run(server.baseURL, retries: 2)
        #expect(result.steps.map(\.verdict) == [.error])
        #expect(result.steps[0].retries == 2)
        #expect(
            result.steps[0].error
                == "gateway unavailable: 503 Service Unavailable with a 'text/html' body that is not JSON: a proxy or "
                + "gateway in front of the implementation answered, not the implementation; run again when it is up "
                + "(after 2 retries)")
        #expect(served.load(ordering: .relaxed) == 3)
    }

    @Test func aResetBeforeAnyAnswerIsRetriedAndCounted() async throws {
        let (server, served) = try server(failing: 1, with: nil)
        defer { server.stop() }
        let without = try await run(server.baseURL, retries: nil)
        #expect(without.steps.map(\.verdict) == [.fail])
        #expect(without.steps[0].error?.hasPrefix("no response: connection reset: ") == true)
        let (again, _) = try self.server(failing: 1, with: nil)
        defer { again.stop() }
        let with = try await run(again.baseURL, retries: 1)
        #expect(with.steps.map(\.verdict) == [.pass])
        #expect(with.steps[0].retries == 1)
        #expect(served.load(ordering: .relaxed) == 1)
    }

    /// The implementation's own 503 (JSON) and a 4xx are answers: never retried, still failures.
    @Test(arguments: [
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 24\r\n"
            + "Connection: close\r\n\r\n{\"requestError\":\"busy\"}",
        "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found",
    ])
    func theImplementationsOwnAnswerIsNeverRetried(_ answer: String) async throws {
        let (server, served) = try server(failing: 1, with: answer)
        defer { server.stop() }
        let result = try await run(server.baseURL, retries: 3)
        #expect(result.steps.map(\.verdict) == [.fail])
        #expect(result.steps[0].retries == 0)
        #expect(result.status == .mismatch)
        #expect(served.load(ordering: .relaxed) == 1)
    }
}
