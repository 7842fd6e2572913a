import ConformCore
import Foundation
import Synchronization

/// Drives an implementation through an adapter program that speaks one JSON object per line on stdin and stdout.
///
/// The program (`/bin/sh -c command`) starts on the first exchange and stays running. Exchanges go one at a time
/// unless the program declares, with a `{"hello":{"concurrency":N}}` line, that it takes `N` at once; more than
/// that are never handed to it, the rest queue in arrival order (time in the queue does not count against an
/// exchange's timeout). When it exits, crashes or closes its stdin or stdout, the exchange fails at once with
/// ``TransportError/Kind/adapterGone``; when it prints something that is not a reply or answers an id it was never
/// asked, with ``TransportError/Kind/adapterProtocol`` (both mean the exchange could not run); when it misses the
/// timeout, with ``TransportError/Kind/adapter``. Then a fresh copy of the program is started for the next exchange.
/// The program runs in a process group of its own, which ``AdapterGroups`` ends on every way out.
/// The wire format is described in `docs/adapters.md`.
public final class ExecTransport: Transport {
    /// The shell command that starts the adapter.
    public let command: String
    /// Variables added to (or replacing) the inherited environment.
    public let environment: [String: String]?
    /// How long an exchange may take when the request sets no timeout.
    public let defaultTimeout: Duration
    /// Extra time an exchange gets while the adapter has printed nothing yet: the program may still be starting
    /// (an interpreter loading, an emulator booting).
    public let startupTimeout: Duration
    /// The largest response body accepted; a reply line that could only carry more fails the exchange.
    public let maxBodyBytes: Int
    private let gate = ExchangeGate()
    private let state = Mutex<(process: AdapterProcess?, nextID: Int)>((nil, 0))
    /// Why the running adapter's declaration was refused; the next exchange fails with it and restarts the adapter.
    private let refusedDeclaration = Mutex<String?>(nil)

    /// Creates a transport; nothing is started until the first exchange.
    public init(
        command: String, environment: [String: String]? = nil, timeout: Duration = .seconds(30),
        startupTimeout: Duration = .seconds(60), maxBodyBytes: Int = ResponseLimits.defaultMaxBodyBytes
    ) {
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.command = command
        self.environment = environment
        self.defaultTimeout = timeout
        self.startupTimeout = startupTimeout
    }

    deinit { state.withLock { $0.process?.terminate() } }

    /// Every exchange ends by `request.timeout` (or the transport's default) on its own.
    public var enforcesTimeout: Bool { true }

    /// How many exchanges the adapter takes at once: 1 until it declares more.
    public var concurrency: Int { get async { await gate.limit } }

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
        let gate = self.gate
        let launched = state.withLock { state -> Result<(AdapterProcess, Int), AdapterProcess.Failure> in
            state.nextID += 1
            if let process = state.process { return .success((process, state.nextID)) }
            do throws(AdapterProcess.Failure) {
                // Launched under the lock, so exchanges that start together share one adapter. A body travels as
                // base64 (4/3 of its size) beside headers: the line limit leaves room for both, and no more.
                let lineLimit = min(maxBodyBytes, Int.max / 8) / 3 * 4 + ResponseLimits.maxHeaderBytes + 4096
                let process = try AdapterProcess.launch(
                    command: command, environment: environment, lineLimit: lineLimit
                ) { [weak self] declared in
                    switch declared {
                    case .success(let limit): Task { await gate.setLimit(limit) }
                    case .failure(let failure): self?.refusedDeclaration.withLock { $0 = failure.message }
                    }
                }
                state.process = process
                return .success((process, state.nextID))
            } catch {
                return .failure(error)
            }
        }
        let (process, id): (AdapterProcess, Int)
        switch launched {
        case .success(let started): (process, id) = started
        case .failure(let error):
            throw TransportError(.adapterGone, "\(request.method) \(request.url): \(error.message)")
        }
        if let problem = refusedDeclaration.withLock({ $0.take() }) {
            throw restart(process, request, "the adapter \(problem)", protocolError: true)
        }
        let line: AdapterProcess.Line
        do {
            line = try await process.exchange(
                Wire.encode(request, id: id), id: id,
                timeout: (request.timeout ?? defaultTimeout) + (process.hasSpoken ? .zero : startupTimeout))
        } catch let failure as AdapterProcess.Failure {
            if failure.tooLarge {
                _ = restart(process, request, "")
                throw TransportError(
                    .tooLarge,
                    "\(request.method) \(request.url): the adapter \(failure.message), for a body over the limit of "
                        + "\(maxBodyBytes) bytes (raise it with --max-body)")
            }
            throw restart(
                process, request, "the adapter \(failure.message)", gone: failure.gone,
                protocolError: failure.protocolError)
        }
        switch Wire.decode(line, id: id) {
        case .success(.response(let response)):
            return response
        case .success(.adapterError(let message)):
            throw TransportError(.adapter, "\(request.method) \(request.url): the adapter reported: \(message)")
        case .failure(let problem):
            throw restart(process, request, problem.message, protocolError: problem.brokeProtocol)
        }
    }

    /// Stops a misbehaving adapter so the next exchange starts a fresh one, and describes what happened.
    ///
    /// An adapter that is `gone` (exited, crashed, closed a stream) or broke the line protocol means the exchange
    /// could not run: not a verdict on the implementation.
    private func restart(
        _ process: AdapterProcess, _ request: HTTPRequest, _ problem: String, gone: Bool = false,
        protocolError: Bool = false
    ) -> TransportError {
        process.terminate(
            reason: "was restarted because another exchange failed: \(problem)", protocolError: protocolError)
        state.withLock { state in
            if state.process === process { state.process = nil }
        }
        let tail = process.stderrTail
        let stderr = tail.isEmpty ? "" : "; adapter stderr:\n\(tail)"
        return TransportError(
            gone ? .adapterGone : protocolError ? .adapterProtocol : .adapter,
            "\(request.method) \(request.url) via `\(command)`: \(problem); the adapter is restarted for the next "
                + "exchange (it must print one JSON reply line per request line, see docs/adapters.md)\(stderr)")
    }
}

/// Lets at most `limit` exchanges through at once, in arrival order.
actor ExchangeGate {
    private(set) var limit = 1
    private var inside = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        if inside < limit {
            inside += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if !waiting.isEmpty, inside <= limit {
            waiting.removeFirst().resume()
        } else {
            inside -= 1
        }
    }

    /// Raises or lowers the limit; a raise lets queued exchanges in at once, a lowering takes effect as they leave.
    func setLimit(_ newLimit: Int) {
        limit = max(1, newLimit)
        while inside < limit, !waiting.isEmpty {
            inside += 1
            waiting.removeFirst().resume()
        }
    }
}
