import ConformCore
import ConformTransports
import Foundation
import Synchronization
import Testing

@Suite("Transport decorators")
struct DecoratorTests {
    /// Answers every request with its own URL and a header the caller can look for.
    struct Echo: Transport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            var response = HTTPResponse(status: 200, body: Data(request.url.utf8))
            response.headerFields["X-Echo"] = request.method.rawValue
            return response
        }
    }

    /// Answers after sleeping `pause`: the recorded duration cannot be shorter.
    struct Slow: Transport {
        let pause: Duration
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            try await Task.sleep(for: pause)
            return HTTPResponse(status: 204)
        }
    }

    struct Down: Transport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            throw TransportError(.connectionRefused, "nobody listens")
        }
    }

    /// Runs every job where it is enqueued; only its identity matters here.
    final class InlineExecutor: TaskExecutor {
        func enqueue(_ job: consuming ExecutorJob) { job.runSynchronously(on: asUnownedTaskExecutor()) }
    }

    struct SelfTimed: Transport {
        let executor = InlineExecutor()
        var enforcesTimeout: Bool { true }
        var preferredTaskExecutor: (any TaskExecutor)? { executor }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { HTTPResponse(status: 204) }
    }

    @Test("rebasing keeps the path and query and replaces the origin")
    func rebasesOntoBase() async throws {
        let transport = RebasedTransport(base: "http://127.0.0.1:9", inner: Echo())
        let absolute = try await transport.send(
            HTTPRequest(method: .get, url: "https://recorded.example/mobile/3/version?platform=android"))
        #expect(
            String(decoding: absolute.body, as: UTF8.self) == "http://127.0.0.1:9/mobile/3/version?platform=android")
        let originForm = try await transport.send(HTTPRequest(method: .post, url: "/mobile/1/data"))
        #expect(String(decoding: originForm.body, as: UTF8.self) == "http://127.0.0.1:9/mobile/1/data")
    }

    @Test("a decorator enforces a timeout and prefers an executor exactly when the transport it wraps does")
    func forwardsEnforcesTimeout() {
        let timed = SelfTimed()
        #expect(RebasedTransport(base: "", inner: timed).preferredTaskExecutor as? InlineExecutor === timed.executor)
        #expect(RecordingTransport(inner: timed) { _ in }.preferredTaskExecutor as? InlineExecutor === timed.executor)
        #expect(RebasedTransport(base: "", inner: Echo()).preferredTaskExecutor == nil)
        #expect(!RebasedTransport(base: "", inner: Echo()).enforcesTimeout)
        #expect(RebasedTransport(base: "", inner: SelfTimed()).enforcesTimeout)
        #expect(RecordingTransport(inner: SelfTimed()) { _ in }.enforcesTimeout)
        #expect(!RecordingTransport(inner: Echo()) { _ in }.enforcesTimeout)
    }

    /// A decorator that declares nothing but what it wraps.
    struct Plain: TransportDecorator {
        let inner: any Transport
    }

    /// Hangs until cancelled, and says whether it was.
    final class Hanging: Transport {
        let cancelled = Mutex(false)
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.withLock { $0 = true }
                throw error
            }
            return HTTPResponse(status: 200)
        }
    }

    /// Answers with the timeout the request carried, in milliseconds, as its status (for an enforcing transport).
    struct TimeoutEcho: Transport {
        var enforcesTimeout: Bool { true }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            HTTPResponse(status: HTTPStatus(Int(request.timeout?.wholeMilliseconds ?? 0)))
        }
    }

    @Test("a decorator that declares only what it wraps sends through it and declares what it declares")
    func decoratorsForwardByDefault() async throws {
        let timed = SelfTimed()
        #expect(Plain(inner: timed).enforcesTimeout)
        #expect(Plain(inner: timed).preferredTaskExecutor as? InlineExecutor === timed.executor)
        #expect(!Plain(inner: Echo()).enforcesTimeout)
        #expect(Plain(inner: Echo()).preferredTaskExecutor == nil)
        let response = try await Plain(inner: Echo()).send(HTTPRequest(method: .put, url: "/x"))
        #expect(response.headerFields["X-Echo"] == "PUT")
        #expect(DeadlineTransport(inner: Echo(), deadline: .seconds(1)).enforcesTimeout)
        #expect(
            DeadlineTransport(inner: timed, deadline: .seconds(1)).preferredTaskExecutor as? InlineExecutor
                === timed.executor)
    }

    @Test("a deadline ends a hanging exchange with a timeout and cancels it")
    func deadlineEndsAHangingExchange() async throws {
        let hanging = Hanging()
        let transport = DeadlineTransport(inner: hanging, deadline: .milliseconds(50))
        await #expect(throws: TransportError.self) {
            _ = try await transport.send(HTTPRequest(method: .get, url: "/hang"))
        }
        do {
            _ = try await transport.send(HTTPRequest(method: .get, url: "/hang"))
        } catch let error as TransportError {
            #expect(error.kind == .timeout)
            #expect(error.message == "no response within 0.05 seconds from /hang")
        }
        // Progress-based: the abandoned exchange's task is cancelled soon after.
        for _ in 0..<500 where !hanging.cancelled.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(hanging.cancelled.withLock { $0 })
    }

    /// Holds every job it is given until `open()`: an exchange queued behind a busy machine.
    final class Gate: TaskExecutor {
        private let held = Mutex<[UnownedJob]?>([])
        private let queue = DispatchQueue(label: "gate")
        var pending: Int { held.withLock { $0?.count ?? 0 } }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let run = held.withLock { held -> Bool in
                guard held != nil else { return true }
                held!.append(job)
                return false
            }
            if run { queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) } }
        }

        func open() {
            for job in held.withLock({ $0.take() }) ?? [] {
                queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
            }
        }
    }

    struct Queued: Transport {
        let gate = Gate()
        var preferredTaskExecutor: (any TaskExecutor)? { gate }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { HTTPResponse(status: 204) }
    }

    @Test("a deadline counts from when the exchange starts, not while it waits for a thread")
    func deadlineCountsFromTheStart() async throws {
        let queued = Queued()
        let transport = DeadlineTransport(inner: queued, deadline: .milliseconds(50))
        let exchange = Task { try await transport.send(HTTPRequest(method: .get, url: "/queued")) }
        while queued.gate.pending == 0 { await Task.yield() }
        // Far past the deadline and its grace while the exchange has not started.
        try await Task.sleep(for: .milliseconds(600))
        queued.gate.open()
        #expect(try await exchange.value.status.code == 204)
    }

    @Test("a transport that enforces timeouts gets the deadline, or the request's own when shorter")
    func deadlineBecomesTheRequestTimeout() async throws {
        let transport = DeadlineTransport(inner: TimeoutEcho(), deadline: .milliseconds(300))
        #expect(try await transport.send(HTTPRequest(method: .get, url: "/")).status.code == 300)
        var short = HTTPRequest(method: .get, url: "/")
        short.timeout = .milliseconds(200)
        #expect(try await transport.send(short).status.code == 200)
        var long = HTTPRequest(method: .get, url: "/")
        long.timeout = .seconds(5)
        #expect(try await transport.send(long).status.code == 300)
    }

    @Test("rebasing sets the Host header it is given and refuses a URL that names no origin-form path")
    func rebasingSetsTheHostAndRefuses() async throws {
        let transport = RebasedTransport(base: "http://127.0.0.1:9", hostHeader: "api.example", inner: Echo())
        let request = try transport.rebase(
            HTTPRequest(method: .get, url: "https://recorded.example/a", headerFields: ["Host": "recorded.example"]))
        #expect(request.url == "http://127.0.0.1:9/a")
        #expect(request.headerFields.values(for: "Host") == ["api.example"])
        await #expect(throws: RequestTargetError.self) {
            _ = try await transport.send(HTTPRequest(method: .get, url: "relative/path"))
        }
    }

    @Test("recording sees the request as it was given and the response the caller gets")
    func recordsEachExchange() async throws {
        let seen = Mutex<[TransportExchange]>([])
        let transport = RecordingTransport(inner: RebasedTransport(base: "http://upstream", inner: Echo())) {
            exchange in seen.withLock { $0.append(exchange) }
        }
        let before = Date()
        let response = try await transport.send(HTTPRequest(method: .get, url: "/a?b=c"))
        let records = seen.withLock { $0 }
        try #require(records.count == 1)
        #expect(records[0].request.url == "/a?b=c")
        let recorded = try records[0].outcome.get()
        #expect(recorded == response)
        #expect(recorded.headerFields["X-Echo"] == "GET")
        #expect(records[0].startedAt >= before.addingTimeInterval(-1))
        #expect(records[0].startedAt <= Date())
    }

    @Test("recording measures the exchange from before the inner transport is called until it answered")
    func recordsTheDuration() async throws {
        let seen = Mutex<[TransportExchange]>([])
        let transport = RecordingTransport(inner: Slow(pause: .milliseconds(20))) { exchange in
            seen.withLock { $0.append(exchange) }
        }
        let start = ContinuousClock.now
        _ = try await transport.send(HTTPRequest(method: .get, url: "/slow"))
        let elapsed = ContinuousClock.now - start
        let records = seen.withLock { $0 }
        try #require(records.count == 1)
        #expect(records[0].duration >= .milliseconds(20))
        #expect(records[0].duration <= elapsed)
        #expect(records[0].durationMs >= 20)
    }

    @Test("recording keeps a failed exchange and rethrows its error")
    func recordsFailures() async {
        let seen = Mutex<[TransportExchange]>([])
        let transport = RecordingTransport(inner: Down()) { exchange in seen.withLock { $0.append(exchange) } }
        await #expect(throws: TransportError(.connectionRefused, "nobody listens")) {
            _ = try await transport.send(HTTPRequest(method: .delete, url: "http://x/y"))
        }
        let records = seen.withLock { $0 }
        #expect(records.count == 1)
        #expect(records.first?.request.method == .delete)
        if case .failure(let error as TransportError)? = records.first?.outcome {
            #expect(error.kind == .connectionRefused)
        } else {
            Issue.record("expected a recorded failure, got \(String(describing: records.first?.outcome))")
        }
    }
}
