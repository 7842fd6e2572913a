import ConformCore
import ConformCurl
import ConformServer
import ConformTestSupport
import Foundation
import Testing

/// Where `AsyncHandlerAdapter` starts its closure: on the executor it is given, else on its own handler threads.
@Suite struct AsyncHandlerExecutorTests {
    @Test func theClosureStartsOnTheExecutorItIsGiven() async throws {
        let executor = TaggedExecutor(name: "given")
        let adapter = AsyncHandlerAdapter(executor: executor) { _ in
            .json(200, ["on": TaggedExecutor.current.map { .string($0) } ?? .null])
        }
        let server = try HTTPServer(handler: adapter)
        try server.start()
        defer { server.stop() }
        let response = try await RebasedTransport(base: server.baseURL, inner: CurlTransport()).send(
            HTTPRequest(method: .get, url: "/where"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"on":"given"}"#)
        #expect(executor.jobs.load(ordering: .relaxed) >= 1)
    }

    @Test func withoutOneTheClosureRunsOffTheCallersThreads() {
        let adapter = AsyncHandlerAdapter { _ in
            .json(200, ["on": TaggedExecutor.current.map { .string($0) } ?? .null])
        }
        let caller = DispatchQueue(label: "conform.tests.caller")
        caller.setSpecific(key: TaggedExecutor.key, value: "caller")
        let response = caller.sync { adapter.handle(HTTPRequest(method: .get, url: "/where")) }
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"on":null}"#)
    }
}
