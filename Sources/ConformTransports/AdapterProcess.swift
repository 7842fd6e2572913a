import CSpawn
import ConformCore
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

private let spawnLock = NSLock()

/// Creates a pipe whose ends are closed in spawned children unless duplicated onto 0, 1 or 2.
private func makePipe(_ ends: inout [Int32]) -> Bool {
    guard pipe(&ends) == 0 else { return false }
    _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
    return true
}

/// A running adapter program: `/bin/sh -c COMMAND` (``AdapterCommand/shellLine(_:)``) in its own process group, with
/// pipes on stdin, stdout and stderr.
///
/// Several exchanges may be under way at once: each reply line goes to the exchange whose `id` it carries.
final class AdapterProcess: Sendable {
    /// Why an exchange with the adapter produced no reply line.
    struct Failure: Error, Sendable {
        var message: String
        /// The adapter is gone (it exited, crashed or never started), as opposed to slow, wrong or stopped by Conform.
        var gone = false
        /// The adapter wrote a reply line over the limit (a response body too large).
        var tooLarge = false
        /// The adapter broke the line protocol (a line that answers no request under way).
        var protocolError = false
    }

    let pid: pid_t
    private let input: Int32
    private let state = Mutex<State>(State())
    private let errorTail = Mutex<[UInt8]>([])
    /// Guards the input descriptor: held while writing, set once it is closed, so the number is never reused under a writer.
    private let inputClosed = Mutex<Bool>(false)
    /// Told the concurrency an adapter declares on a `{"hello":{"concurrency":N}}` line, or what is wrong with it.
    private let onDeclaration: @Sendable (Result<Int, Failure>) -> Void
    private static let tailLimit = 2048
    /// The longest reply line read; a longer one stops the adapter.
    private let lineLimit: Int
    /// The largest concurrency an adapter may declare.
    static let concurrencyLimit = 256

    /// One line the adapter wrote, parsed once: the JSON value (or why it is not JSON) and an excerpt for messages.
    /// The line's own bytes are gone by then, so a large reply is held once, as the value.
    struct Line: Sendable {
        var value: Result<JSONValue, JSONParseError>
        /// The start of the line, for messages.
        var excerpt: String
    }

    private struct State {
        /// Exchanges waiting for their reply, by request id.
        var waiting: [Int: CheckedContinuation<Line, any Error>] = [:]
        var exitDescription: String?
        var tooLarge = false
        var killed = false
        /// Why Conform stopped the adapter, told to the exchanges still under way.
        var stopReason: String?
        /// Whether it was stopped for breaking the line protocol.
        var stoppedForProtocol = false
        /// Whether the adapter has printed a line yet (until then it may still be starting).
        var spoken = false

        /// How an exchange still under way ends once the adapter has exited with `description`: with Conform's reason
        /// when Conform stopped it, else as gone (unless it was stopped for a line over the limit).
        func failure(_ description: String) -> Failure {
            if let stopReason { return Failure(message: stopReason, protocolError: stoppedForProtocol) }
            return Failure(message: description, gone: !tooLarge, tooLarge: tooLarge)
        }
    }

    /// Whether the adapter has printed a line on stdout yet.
    var hasSpoken: Bool { state.withLock { $0.spoken } }

    /// Starts the adapter; throws when the shell cannot be spawned.
    static func launch(
        command: String, environment: [String: String]?, lineLimit: Int = 64 * 1024 * 1024,
        onDeclaration: @escaping @Sendable (Result<Int, Failure>) -> Void = { _ in }
    ) throws(Failure) -> AdapterProcess {
        var stdinPipe: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        var stderrPipe: [Int32] = [-1, -1]
        // Pipes are made and the child spawned under one lock, so no other adapter inherits these descriptors.
        spawnLock.lock()
        defer { spawnLock.unlock() }
        guard makePipe(&stdinPipe), makePipe(&stdoutPipe), makePipe(&stderrPipe) else {
            throw Failure(message: "cannot create pipes for the adapter: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        // Nothing else of Conform's reaches the adapter: libraries (libcurl's sockets, a recording's file) do not
        // all open their descriptors close-on-exec.
        let closing = conform_spawn_close_from(&actions, 3)
        guard closing == 0 else {
            for fd in stdinPipe + stdoutPipe + stderrPipe { close(fd) }
            throw Failure(message: "cannot prepare the adapter's start: \(String(cString: strerror(closing)))")
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Dispositions Conform set for itself (ignored, so its own handlers see them) are not the adapter's.
        let attributed = conform_spawn_own_group_default_signals(&attributes)
        guard attributed == 0 else {
            for fd in stdinPipe + stdoutPipe + stderrPipe { close(fd) }
            throw Failure(message: "cannot prepare the adapter's start: \(String(cString: strerror(attributed)))")
        }

        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment ?? [:] { merged[key] = value }
        let arguments: [String] = ["/bin/sh", "-c", AdapterCommand.shellLine(command)]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { (text: String) in strdup(text) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { (pair) in strdup("\(pair.key)=\(pair.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }

        var pid: pid_t = 0
        var result: Int32 = 0
        let allowed = AdapterGroups.spawning {
            result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
            return result == 0 ? pid : nil
        }
        for fd in [stdinPipe[0], stdoutPipe[1], stderrPipe[1]] { close(fd) }
        guard allowed else {
            for fd in [stdinPipe[1], stdoutPipe[0], stderrPipe[0]] { close(fd) }
            throw Failure(message: "was not started: Conform is ending")
        }
        guard result == 0 else {
            for fd in [stdinPipe[1], stdoutPipe[0], stderrPipe[0]] { close(fd) }
            throw Failure(message: "cannot start /bin/sh -c \(command): \(String(cString: strerror(result)))")
        }
        let process = AdapterProcess(
            pid: pid, input: stdinPipe[1], lineLimit: lineLimit, onDeclaration: onDeclaration)
        process.startReaders(output: stdoutPipe[0], errors: stderrPipe[0])
        return process
    }

    private init(
        pid: pid_t, input: Int32, lineLimit: Int, onDeclaration: @escaping @Sendable (Result<Int, Failure>) -> Void
    ) {
        self.pid = pid
        self.input = input
        self.lineLimit = lineLimit
        self.onDeclaration = onDeclaration
    }

    /// Writes one request line and waits for the reply carrying `id`, failing on exit or after `timeout`.
    func exchange(_ line: String, id: Int, timeout: Duration) async throws -> Line {
        let input = self.input
        let bytes = Array((line + "\n").utf8)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Line, any Error>) in
            let ended: Failure? = state.withLock { state in
                if let exit = state.exitDescription { return state.failure(exit) }
                state.waiting[id] = continuation
                return nil
            }
            if let ended {
                continuation.resume(throwing: ended)
                return
            }
            let writer = Thread { [self] in
                // Closed by the reader once the adapter ended: the exchange fails with the exit then.
                let refused: Int32? = inputClosed.withLock { closed in
                    closed || Self.writeAll(bytes, to: input) ? nil : errno
                }
                // An adapter that is exiting (a program that was not found, a crash) closes its stdin too: its exit
                // status, which the stdout reader reports to every exchange under way, says more than the pipe.
                if let refused, !leaderExits(within: .seconds(2)) {
                    // The adapter closed its stdin while running: the request never reached it, and no reply can come.
                    fail(
                        id: id,
                        Failure(
                            message: "closed its standard input (the request line could not be written: "
                                + "\(String(cString: strerror(refused))))", gone: true))
                }
            }
            writer.start()
            // Whole milliseconds, at most a day: a library caller's huge timeout must not overflow the clock.
            let milliseconds = Int(min(max(timeout, .zero), .seconds(86_400)).wholeMilliseconds)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(max(milliseconds, 1))) { [self] in
                fail(id: id, Failure(message: "no reply within \(timeout)"))
            }
        }
    }

    /// The last lines the adapter wrote to stderr.
    var stderrTail: String {
        let bytes = errorTail.withLock { $0 }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Ends the adapter's whole process group (SIGTERM, then SIGKILL after ``AdapterGroups/grace``); its reader
    /// thread then reaps it and closes the pipes. Exchanges still under way fail with `reason` when one is given.
    func terminate(reason: String? = nil, protocolError: Bool = false) {
        let first = state.withLock { state in
            defer { state.killed = true }
            if !state.killed {
                state.stopReason = reason
                state.stoppedForProtocol = protocolError
            }
            return !state.killed
        }
        guard first else { return }
        AdapterGroups.end(pid)
    }

    deinit { terminate() }

    private func fail(id: Int, _ failure: Failure) {
        let waiter = state.withLock { $0.waiting.removeValue(forKey: id) }
        waiter?.resume(throwing: failure)
    }

    /// Hands a line to the exchange it answers. A line that answers no exchange under way goes to the only one
    /// under way, which reports what is wrong with it; with several under way no reply can be trusted any more, so
    /// the adapter is stopped.
    private func route(_ bytes: consuming [UInt8]) {
        state.withLock { $0.spoken = true }
        let line = Line(bytes)
        let parsed = try? line.value.get()
        if let parsed, parsed["id"] == nil, let hello = parsed["hello"] {
            onDeclaration(Self.declaredConcurrency(hello, line: line.excerpt))
            return
        }
        let id = parsed?["id"]?.numberValue.flatMap { Int(exactly: $0) }
        let waiter = state.withLock { state -> CheckedContinuation<Line, any Error>? in
            if let id, let waiter = state.waiting.removeValue(forKey: id) { return waiter }
            guard state.waiting.count == 1, let only = state.waiting.first else { return nil }
            state.waiting[only.key] = nil
            return only.value
        }
        if let waiter {
            waiter.resume(returning: line)
        } else {
            terminate(reason: "wrote a line that answers no request under way: \(line.excerpt)", protocolError: true)
        }
    }

    /// The concurrency a `hello` line declares: an integer from 1 to ``concurrencyLimit``.
    static func declaredConcurrency(_ hello: JSONValue, line: String) -> Result<Int, Failure> {
        guard let number = hello["concurrency"]?.numberValue, let value = Int(exactly: number),
            (1...concurrencyLimit).contains(value)
        else {
            return .failure(
                Failure(
                    message: "declared \(line), but \"concurrency\" must be an integer "
                        + "from 1 to \(concurrencyLimit)"))
        }
        return .success(value)
    }

    private func exited(_ description: String, tooLarge: Bool = false) {
        let (waiters, failure) = state.withLock { state in
            state.exitDescription = description
            state.tooLarge = tooLarge
            let waiters = Array(state.waiting.values)
            state.waiting.removeAll()
            return (waiters, state.failure(description))
        }
        for waiter in waiters { waiter.resume(throwing: failure) }
    }

    private func startReaders(output: Int32, errors: Int32) {
        let stderrDone = DispatchSemaphore(value: 0)
        // Once the leading process has exited, the rest of its group goes too: children it left behind would hold
        // its stdout open, and no reply can come from them. The leader stays unreaped (for the stdout reader), so
        // its group's id is not reused meanwhile.
        Thread { [pid = self.pid] in
            var info = siginfo_t()
            var result: Int32
            repeat { result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) } while result < 0 && errno == EINTR
            if result == 0 { AdapterGroups.end(pid) }
        }.start()
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(errors, &buffer, buffer.count)
                if count <= 0 { break }
                errorTail.withLock { tail in
                    tail.append(contentsOf: buffer[0..<count])
                    if tail.count > Self.tailLimit { tail.removeFirst(tail.count - Self.tailLimit) }
                }
            }
            close(errors)
            stderrDone.signal()
        }.start()
        Thread { [self] in
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            var overflow = false
            while true {
                let count = read(output, &buffer, buffer.count)
                if count <= 0 { break }
                var start = 0
                for index in 0..<count where buffer[index] == 0x0A {
                    pending.append(contentsOf: buffer[start..<index])
                    // Handed over whole, so the line's bytes are freed as soon as it is parsed, and a large line
                    // leaves no large buffer behind.
                    let line = pending
                    pending = []
                    route(line)
                    start = index + 1
                }
                pending.append(contentsOf: buffer[start..<count])
                if pending.count > lineLimit {
                    overflow = true
                    break
                }
            }
            close(output)
            if overflow { terminate() }
            // End of file on stdout: the adapter exited, or it closed its stdout and can never reply again. Either
            // way every exchange fails now, not at its timeout. An exiting process closes its files a moment before
            // it can be waited for, a moment that a loaded machine can stretch: two seconds to tell the two apart.
            let closedEarly = !overflow && !leaderExits(within: .seconds(2))
            if closedEarly {
                exited(
                    "closed its standard output while still running (an adapter must keep it open and print one "
                        + "reply line per request line)")
            }
            // The leader is not reaped yet, so its group id cannot have been reused: end what is left of the group
            // (children the adapter started, or the adapter itself when it closed its stdout).
            AdapterGroups.end(pid)
            var status: Int32 = 0
            inputClosed.withLock { closed in
                if !closed { close(input) }
                closed = true
            }
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            _ = stderrDone.wait(timeout: .now() + 1)
            let exit =
                status & 0x7F == 0
                ? "exited with status \((status >> 8) & 0xFF)" : "was killed by signal \(status & 0x7F)"
            if overflow {
                exited("wrote a reply line longer than \(lineLimit) bytes", tooLarge: true)
            } else if !closedEarly {
                exited("\(exit) without replying")
            }
        }.start()
    }

    /// Whether the adapter's leading process ends within `wait`, left unreaped (a zombie keeps the group's id taken).
    private func leaderExits(within wait: Duration) -> Bool {
        let deadline = ContinuousClock.now + wait
        while true {
            var info = siginfo_t()
            let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            if result == 0 && info._sifields._sigchld.si_pid == pid { return true }
            if result < 0 && errno != EINTR { return true }
            if ContinuousClock.now >= deadline { return false }
            usleep(10_000)
        }
    }

    /// Writes on a thread that blocks SIGPIPE, so a dead adapter yields EPIPE instead of killing the process; false
    /// when the line could not be written whole (`errno` says why).
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }
}

extension AdapterProcess.Line {
    /// Parses `bytes` (one line, without its newline) and keeps only the value and an excerpt.
    init(_ bytes: consuming [UInt8]) {
        excerpt = ExecTransport.Wire.excerpt(bytes)
        let budget = JSONValue.memoryBudget(forDocumentOf: bytes.count)
        value = Result { () throws(JSONParseError) in try JSONValue.parse(bytes: bytes, memoryBudget: budget) }
    }
}
