import ConformCore
import Foundation
import Synchronization

/// Drives an implementation through an adapter program that speaks one JSON object per line on stdin and stdout.
///
/// The program (`/bin/sh -c command`) starts on the first exchange and stays running; exchanges go one at a time.
/// When it exits, prints something that is not a reply, or misses the timeout, the exchange fails with
/// ``TransportError/Kind/adapter`` (``TransportError/Kind/adapterGone`` when it exited or crashed) and a fresh copy of the program is started for the next exchange.
/// The wire format is described in `docs/adapters.md`.
public final class ExecTransport: Transport {
    /// The shell command that starts the adapter.
    public let command: String
    /// Variables added to (or replacing) the inherited environment.
    public let environment: [String: String]?
    /// How long an exchange may take when the request sets no timeout.
    public let defaultTimeout: Duration
    /// The largest response body accepted; a reply line that could only carry more fails the exchange.
    public let maxBodyBytes: Int
    private let gate = ExchangeGate()
    private let state = Mutex<(process: AdapterProcess?, nextID: Int)>((nil, 0))

    /// Creates a transport; nothing is started until the first exchange.
    public init(
        command: String, environment: [String: String]? = nil, timeout: Duration = .seconds(30),
        maxBodyBytes: Int = ResponseLimits.defaultMaxBodyBytes
    ) {
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.command = command
        self.environment = environment
        self.defaultTimeout = timeout
    }

    deinit { state.withLock { $0.process?.terminate() } }

    /// Every exchange ends by `request.timeout` (or the transport's default) on its own.
    public var enforcesTimeout: Bool { true }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        await gate.enter()
        do {
            let response = try await exchange(request)
            await gate.leave()
            return response
        } catch {
            await gate.leave()
            throw error
        }
    }

    private func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (existing, id) = state.withLock { state in
            state.nextID += 1
            return (state.process, state.nextID)
        }
        let process: AdapterProcess
        if let existing {
            process = existing
        } else {
            do {
                // A body travels as base64 (4/3 of its size) beside headers: room for both, and no more.
                let lineLimit = maxBodyBytes / 3 * 4 + ResponseLimits.maxHeaderBytes + 4096
                process = try AdapterProcess.launch(command: command, environment: environment, lineLimit: lineLimit)
            } catch {
                throw TransportError(.adapterGone, "\(request.method) \(request.url): \(error.message)")
            }
            state.withLock { $0.process = process }
        }
        let line: String
        do {
            line = try await process.exchange(Wire.encode(request, id: id), timeout: request.timeout ?? defaultTimeout)
        } catch let failure as AdapterProcess.Failure {
            if failure.tooLarge {
                _ = restart(process, request, "")
                throw TransportError(
                    .tooLarge,
                    "\(request.method) \(request.url): the adapter \(failure.message), for a body over the limit of "
                        + "\(maxBodyBytes) bytes (raise it with --max-body)")
            }
            throw restart(process, request, "the adapter \(failure.message)", gone: failure.gone)
        }
        switch Wire.decode(line, id: id) {
        case .success(.response(let response)):
            return response
        case .success(.adapterError(let message)):
            throw TransportError(.adapter, "\(request.method) \(request.url): the adapter reported: \(message)")
        case .failure(let problem):
            throw restart(process, request, problem.message)
        }
    }

    /// Stops a misbehaving adapter so the next exchange starts a fresh one, and describes what happened.
    ///
    /// An adapter that is `gone` (exited or crashed) means the run cannot go on: not a verdict on the implementation.
    private func restart(_ process: AdapterProcess, _ request: HTTPRequest, _ problem: String, gone: Bool = false)
        -> TransportError
    {
        process.terminate()
        state.withLock { state in
            if state.process === process { state.process = nil }
        }
        let tail = process.stderrTail
        let stderr = tail.isEmpty ? "" : "; adapter stderr:\n\(tail)"
        return TransportError(
            gone ? .adapterGone : .adapter,
            "\(request.method) \(request.url) via `\(command)`: \(problem); the adapter is restarted for the next "
                + "exchange (it must print one JSON reply line per request line, see docs/adapters.md)\(stderr)")
    }
}

/// Lets one exchange at a time through, in arrival order.
actor ExchangeGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
