import ConformCore
import ConformTransports
import Foundation
import Testing

/// An adapter that declares a concurrency gets that many exchanges at once, and never more.
@Suite("ExecTransport concurrency")
struct ExecTransportConcurrencyTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Adapters/concurrent_adapter.py").path

    func adapter(hello: String, received: String = "") -> ExecTransport {
        ExecTransport(
            command: "exec python3 -u '\(Self.script)'",
            environment: ["CONFORM_TEST_HELLO": hello, "CONFORM_TEST_RECEIVED": received], timeout: .seconds(60))
    }

    /// Sends `count` requests at once; each reply body as JSON, in request order.
    func sendAll(_ transport: ExecTransport, count: Int, sleep: Int) async throws -> [JSONValue] {
        try await withThrowingTaskGroup(of: (Int, JSONValue).self) { group in
            for index in 0..<count {
                group.addTask {
                    // Later requests sleep less, so replies come back out of order.
                    let url = "/sleep/\(sleep * (count - index))/\(index)"
                    let response = try await transport.send(HTTPRequest(method: .get, url: url))
                    return (index, try JSONValue.parse(response.body))
                }
            }
            return try await group.reduce(into: [(Int, JSONValue)]()) { $0.append($1) }.sorted { $0.0 < $1.0 }
                .map(\.1)
        }
    }

    @Test func aDeclaredConcurrencyIsUsedAndNeverExceeded() async throws {
        let transport = adapter(hello: #"{"hello":{"concurrency":4}}"#)
        // The first exchange goes alone and brings the declaration with it.
        _ = try await transport.send(HTTPRequest(method: .get, url: "/sleep/1/first"))
        #expect(await transport.concurrency == 4)
        let replies = try await sendAll(transport, count: 16, sleep: 20)
        for (index, reply) in replies.enumerated() {
            #expect(reply["url"]?.stringValue?.hasSuffix("/\(index)") == true, "each reply reaches its own request")
        }
        let most = replies.compactMap { $0["most"]?.numberValue }.max() ?? 0
        #expect(most == 4, "the adapter had at most \(most) requests under way")
    }

    @Test func withoutADeclarationExchangesGoOneAtATime() async throws {
        let transport = adapter(hello: "")
        let replies = try await sendAll(transport, count: 6, sleep: 10)
        #expect(replies.compactMap { $0["most"]?.numberValue }.max() == 1)
        #expect(await transport.concurrency == 1)
    }

    @Test(arguments: [
        #"{"hello":{"concurrency":0}}"#, #"{"hello":{"concurrency":"many"}}"#, #"{"hello":{"concurrency":1e9}}"#,
        #"{"hello":{}}"#,
    ])
    func aBadDeclarationFailsAnExchangeAndSaysWhatIsAllowed(hello: String) async throws {
        let transport = adapter(hello: hello)
        var message = ""
        for _ in 0..<2 {
            do {
                _ = try await transport.send(HTTPRequest(method: .get, url: "/sleep/1/x"))
            } catch let error as TransportError {
                message = error.message
                break
            }
        }
        #expect(message.contains("\"concurrency\" must be an integer from 1 to 256"), "\(message)")
        #expect(await transport.concurrency == 1)
    }

    @Test func anAdapterThatStartsSlowlyGetsTheStartupAllowanceOnce() async throws {
        // The gaps are wide (1 s against 20 s and 30 s), so a busy machine cannot turn a timeout into a reply.
        let patient = ExecTransport(
            command: "sleep 2; exec python3 -u '\(Self.script)'", timeout: .seconds(1), startupTimeout: .seconds(60))
        _ = try await patient.send(HTTPRequest(method: .get, url: "/sleep/1/first"))
        let hurried = ExecTransport(
            command: "sleep 20; exec python3 -u '\(Self.script)'", timeout: .seconds(1), startupTimeout: .zero)
        await #expect(throws: TransportError.self) {
            _ = try await hurried.send(HTTPRequest(method: .get, url: "/sleep/1/first"))
        }
        // Once the adapter has spoken, the plain timeout applies.
        await #expect(throws: TransportError.self) {
            _ = try await patient.send(HTTPRequest(method: .get, url: "/sleep/30000/slow"))
        }
    }

    @Test func aReplyForNoRequestStopsTheAdapterAndFailsEveryExchangeUnderWay() async throws {
        let received = FileManager.default.temporaryDirectory.appendingPathComponent("conform-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: received) }
        let transport = adapter(hello: #"{"hello":{"concurrency":2}}"#, received: received.path)
        _ = try await transport.send(HTTPRequest(method: .get, url: "/sleep/1/first"))
        let slow = Task { try await transport.send(HTTPRequest(method: .get, url: "/sleep/30000/slow")) }
        // The stray reply must come while the slow request is under way: wait until the adapter has it.
        for _ in 0..<1200 {
            if let text = try? String(contentsOf: received, encoding: .utf8), text.contains("slow") { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        let stray = await Result(catching: { try await transport.send(HTTPRequest(method: .get, url: "/stray")) })
        let slowResult = await Result(catching: { try await slow.value })
        for result in [stray, slowResult] {
            guard case .failure(let error as TransportError) = result else {
                Issue.record("expected a failure, got \(result)")
                continue
            }
            #expect(error.kind == .adapterProtocol)
            #expect(error.meansCannotRun)
            #expect(error.message.contains("answers no request under way"), "\(error.message)")
        }
        // A fresh adapter takes the next exchange.
        let after = try await transport.send(HTTPRequest(method: .get, url: "/sleep/1/after"))
        #expect(after.status.code == 200)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
