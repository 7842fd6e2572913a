import ConformCore
import Foundation
import Testing

@testable import ConformTransports

@Suite("ExecTransport")
struct ExecTransportTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Adapters/test_adapter.py").path

    func adapter(timeout: Duration = .seconds(20), viaShell: Bool = false) -> ExecTransport {
        // Without `exec` the shell stays as the parent, so stopping the adapter must stop its whole process group.
        ExecTransport(
            command: viaShell ? "python3 -u '\(Self.script)'; exit $?" : "exec python3 -u '\(Self.script)'",
            environment: ["CONFORM_TEST_VALUE": "from-env"], timeout: timeout)
    }

    func failure(_ transport: ExecTransport, _ request: HTTPRequest) async -> TransportError? {
        do {
            _ = try await transport.send(request)
            return nil
        } catch let error as TransportError {
            return error
        } catch {
            return TransportError(.other, "unexpected \(error)")
        }
    }

    func pid(_ transport: ExecTransport) async throws -> String {
        try await transport.send(HTTPRequest(method: .get, url: "/echo")).headerFields["X-Adapter-PID"] ?? ""
    }

    @Test func happyPathKeepsOneAdapterRunning() async throws {
        let transport = adapter()
        let request = HTTPRequest(
            method: .post, url: "http://mobile.conform.invalid/mobile/3/personalize?forceDepersonalize=false",
            headerFields: ["Authorization": "App conform-app-code", "X-Dup": "1", "x-dup": "2"],
            body: Data(#"{"userIdentity":{"externalUserId":"ü-1"}}"#.utf8))
        let response = try await transport.send(request)
        #expect(response.status == 201)
        #expect(response.headerFields.values(for: "set-cookie") == ["a=1", "b=2"])
        let described = try JSONValue.parse(response.body)
        #expect(described["method"] == "POST")
        #expect(described["url"]?.stringValue == request.url)
        #expect(described["body"]?.stringValue == #"{"userIdentity":{"externalUserId":"ü-1"}}"#)
        #expect(described["env"] == "from-env")
        #expect(described["headers"] == [["Authorization", "App conform-app-code"], ["X-Dup", "1"], ["x-dup", "2"]])
        let first = try await pid(transport)
        let second = try await pid(transport)
        #expect(!first.isEmpty && first == second)
    }

    @Test func binaryBodiesTravelAsBase64() async throws {
        let body = Data([0xFF, 0x00, 0xFE, 0x41])
        let response = try await adapter().send(HTTPRequest(method: .put, url: "/binary", body: body))
        #expect(response.status == 200)
        #expect(response.body == Data(body.reversed()))
    }

    @Test func crashFailsTheExchangeAndRestartsTheAdapter() async throws {
        let transport = adapter()
        let before = try await pid(transport)
        let error = await failure(transport, HTTPRequest(method: .get, url: "/crash"))
        #expect(error?.kind == .adapterGone)
        #expect(error?.meansCannotRun == true)
        #expect(error?.message.contains("exited with status 3") == true)
        #expect(error?.message.contains("boom: adapter crashed on purpose") == true)
        #expect(error?.message.contains("GET /crash") == true)
        let after = try await pid(transport)
        #expect(!after.isEmpty && after != before)
    }

    @Test func garbageLineFailsTheExchangeAndRestartsTheAdapter() async throws {
        let transport = adapter()
        let before = try await pid(transport)
        let error = await failure(transport, HTTPRequest(method: .get, url: "/garbage"))
        #expect(error?.kind == .adapterProtocol)
        #expect(error?.meansCannotRun == true, "a line that is no reply says nothing about the implementation")
        #expect(error?.message.contains("not JSON") == true)
        #expect(error?.message.contains("this is not json") == true)
        let after = try await pid(transport)
        #expect(after != before)
    }

    /// A log line on stdout breaks the protocol: the exchange could not run, and the message names the line.
    @Test func aLogLineOnStdoutCouldNotRunAndIsNamed() async throws {
        let transport = adapter()
        let before = try await pid(transport)
        let error = await failure(transport, HTTPRequest(method: .get, url: "/log-line"))
        #expect(error?.kind == .adapterProtocol)
        #expect(error?.meansCannotRun == true)
        #expect(error?.message.contains("INFO starting the exchange") == true, "\(String(describing: error))")
        #expect(error?.message.contains("GET /log-line") == true)
        #expect(try await pid(transport) != before)
    }

    /// An answer to an id that was never asked breaks the protocol: the exchange could not run.
    @Test func anAnswerToAnIdNeverAskedCouldNotRun() async throws {
        let error = await failure(adapter(), HTTPRequest(method: .get, url: "/wrong-id"))
        #expect(error?.kind == .adapterProtocol)
        #expect(error?.meansCannotRun == true)
        #expect(error?.message.contains("expected") == true, "\(String(describing: error))")
    }

    /// An adapter that closed its stdin while running cannot be asked anything more: the next exchange could not run,
    /// at once rather than at its timeout, and a fresh adapter takes the one after.
    @Test func anAdapterThatClosesItsStdinCouldNotRunAtOnce() async throws {
        let transport = adapter(timeout: .seconds(600))
        _ = try await transport.send(HTTPRequest(method: .get, url: "/close-stdin"))
        let started = ContinuousClock.now
        let error = await failure(transport, HTTPRequest(method: .get, url: "/next"))
        #expect(error?.kind == .adapterGone)
        #expect(error?.meansCannotRun == true)
        #expect(error?.message.contains("closed its standard input") == true, "\(String(describing: error))")
        // Far below the timeout of 600 s: the failed write is noticed, not waited out.
        #expect(ContinuousClock.now - started < .seconds(120))
        #expect(!(try await pid(transport)).isEmpty)
    }

    /// An adapter command written as a user writes it (`python3 adapter.py`, no `exec`) that closes its stdout, after
    /// one reply or before the first, could not run at once: the shell that started it keeps no copy of that stdout.
    @Test(arguments: [true, false])
    func anAdapterThatClosesItsStdoutAfterAReplyOrFirstCouldNotRunAtOnce(answersFirst: Bool) async throws {
        let transport = ExecTransport(command: "python3 -u '\(Self.script)'", timeout: .seconds(600))
        if answersFirst {
            let response = try await transport.send(HTTPRequest(method: .get, url: "/close-stdout"))
            #expect(response.status == 200)
        }
        let started = ContinuousClock.now
        let error = await failure(
            transport, HTTPRequest(method: .get, url: answersFirst ? "/next" : "/close-stdout-first"))
        #expect(error?.kind == .adapterGone)
        #expect(error?.meansCannotRun == true)
        #expect(error?.message.contains("closed its standard output") == true, "\(String(describing: error))")
        // Far below the timeout of 600 s: the end of file is noticed, not waited out.
        #expect(ContinuousClock.now - started < .seconds(120))
        #expect(!(try await pid(transport)).isEmpty)
    }

    /// Only a simple command gets `exec` in front; shell syntax, builtins and assignments run as written.
    @Test func onlyASimpleCommandIsExeced() {
        #expect(
            AdapterCommand.shellLine("python3 -u 'my adapter.py' --port=8080")
                == "exec python3 -u 'my adapter.py' --port=8080")
        #expect(AdapterCommand.shellLine("./bin/adapter") == "exec ./bin/adapter")
        for command in [
            "cd sdk && python3 adapter.py", "exec >&-; sleep 300", "python3 a.py | tee log", "python3 $ADAPTER",
            "FOO=1 python3 a.py", "read -r line", "while read l; do echo; done", "python3 \"$(pwd)/a.py\"",
            "~/adapter", "python3 a.py > log", "python3 'unterminated",
        ] {
            #expect(AdapterCommand.shellLine(command) == command, "\(command)")
        }
    }

    /// A large reply line is read into one buffer that is handed over and parsed once; the response arrives whole,
    /// and the adapter keeps running for the next exchange.
    @Test func aLargeReplyArrivesWholeAndTheAdapterStays() async throws {
        // The adapter encodes 24 MiB in Python: on a loaded machine that alone can take tens of seconds, and the
        // claim here is that it arrives whole, not how fast.
        let transport = adapter(timeout: .seconds(120))
        let before = try await pid(transport)
        let response = try await transport.send(HTTPRequest(method: .get, url: "/large"))
        #expect(response.body.count == 24 * 1024 * 1024)
        #expect(response.body.prefix(3) == Data([0, 1, 2]) && response.body.suffix(1) == Data([255]))
        #expect(try await pid(transport) == before)
    }

    /// A reply line of many small values (1.5 million header fields in 15 MB) would take far more than its size as
    /// a tree: it is refused as a reply, naming the budget, before the tree is built.
    @Test func aReplyLineOverItsMemoryBudgetIsRefused() async throws {
        let error = await failure(adapter(), HTTPRequest(method: .get, url: "/many-headers"))
        #expect(error?.kind == .adapter)
        #expect(error?.message.contains("memory budget") == true, "\(String(describing: error))")
    }

    /// A long line that is not a reply is quoted by its start only.
    @Test func aLongGarbageLineIsQuotedByItsStart() async throws {
        let error = await failure(adapter(), HTTPRequest(method: .get, url: "/long-garbage"))
        #expect(error?.kind == .adapterProtocol)
        #expect(error?.message.contains("not JSON") == true)
        #expect(error?.message.contains(String(repeating: "x", count: 200) + "…") == true)
        #expect((error?.message.count ?? .max) < 2000)
    }

    @Test(arguments: [false, true])
    func silentAdapterTimesOutAndIsReplaced(viaShell: Bool) async throws {
        let transport = adapter(viaShell: viaShell)
        let before = try await pid(transport)
        let error = await failure(transport, HTTPRequest(method: .get, url: "/hang", timeout: .milliseconds(300)))
        #expect(error?.kind == .adapter)
        #expect(error?.message.contains("no reply within") == true)
        #expect(error?.meansCannotRun == false, "a slow adapter is judged, not excused")
        let after = try await pid(transport)
        #expect(after != before)
    }

    @Test func reportedErrorKeepsTheAdapter() async throws {
        let transport = adapter()
        let before = try await pid(transport)
        let error = await failure(transport, HTTPRequest(method: .get, url: "/error"))
        #expect(error?.kind == .adapter)
        #expect(error?.message.contains("the adapter reported: upstream refused the connection") == true)
        #expect(try await pid(transport) == before)
    }

    /// End of file on the adapter's stdout means no reply can ever come: every exchange under way and every later one
    /// fails at once as an adapter that could not run, not at its timeout as a verdict on the implementation.
    @Test func anAdapterThatClosesItsStdoutFailsEveryExchangeAtOnce() async throws {
        let transport = ExecTransport(command: "exec >&-; sleep 300", timeout: .seconds(600))
        let started = ContinuousClock.now
        let errors = await withTaskGroup(of: TransportError?.self) { group in
            for index in 0..<3 {
                group.addTask { await failure(transport, HTTPRequest(method: .get, url: "/pending/\(index)")) }
            }
            return await group.reduce(into: [TransportError?]()) { $0.append($1) }
        }
        let later = await failure(transport, HTTPRequest(method: .get, url: "/later"))
        for error in errors + [later] {
            #expect(error?.kind == .adapterGone)
            #expect(error?.meansCannotRun == true)
            #expect(error?.message.contains("closed its standard output") == true, "\(String(describing: error))")
        }
        // Far below the timeout of 600 s (each adapter is given two seconds to show an exit status).
        #expect(ContinuousClock.now - started < .seconds(120))
    }

    @Test func missingProgramIsAClearFailure() async {
        let transport = ExecTransport(command: "/nonexistent/conform-adapter --serve")
        let error = await failure(transport, HTTPRequest(method: .get, url: "/x"))
        #expect(error?.kind == .adapterGone)
        #expect(error?.message.contains("exited with status 127") == true, "\(String(describing: error))")
        #expect(error?.message.contains("/nonexistent/conform-adapter") == true)
    }

    /// Conform's own files and sockets are not the adapter's: a descriptor Conform holds open without close-on-exec
    /// (as libraries and `FileHandle` leave theirs) does not reach the adapter; only its three streams do.
    @Test func theAdapterInheritsOnlyItsThreeStreams() async throws {
        let held = open("/dev/null", O_RDONLY)
        try #require(held >= 0)
        defer { close(held) }
        let inherited = fcntl(held, F_DUPFD, 200)  // a high number the shell has no use for, without FD_CLOEXEC
        try #require(inherited >= 200)
        defer { close(inherited) }
        #expect(fcntl(inherited, F_GETFD) & FD_CLOEXEC == 0)
        let listing = FileManager.default.temporaryDirectory.appendingPathComponent("conform-fds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: listing) }
        // The shell lists its own descriptors (the ones it was started with) before it becomes the adapter.
        let transport = ExecTransport(
            command: "ls /proc/$$/fd > '\(listing.path)'; exec python3 -u '\(Self.script)'", timeout: .seconds(20))
        #expect(try await transport.send(HTTPRequest(method: .get, url: "/echo")).status == 201)
        let descriptors = try String(contentsOf: listing, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
        #expect(descriptors.filter { $0 <= 2 }.sorted() == [0, 1, 2], "the adapter started with \(descriptors)")
        #expect(!descriptors.contains(Int(inherited)), "the adapter started with \(descriptors)")
        // dash keeps one descriptor of its own (number 10, a copy of what it reads commands from); without the
        // fix the adapter started with every open descriptor of this test process (17 of them in a run).
        #expect(descriptors.filter { $0 > 2 }.count <= 1, "the adapter started with \(descriptors)")
    }

    @Test func concurrentExchangesAreSerialised() async throws {
        let transport = adapter()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<16 {
                group.addTask { try await transport.send(HTTPRequest(method: .get, url: "/echo/\(index)")).status.code }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 201, count: 16))
    }
}
