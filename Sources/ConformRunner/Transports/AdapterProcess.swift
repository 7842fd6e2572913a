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

/// A running adapter program: `/bin/sh -c COMMAND` in its own process group, with pipes on stdin, stdout and stderr.
final class AdapterProcess: Sendable {
    /// Why an exchange with the adapter produced no reply line.
    struct Failure: Error, Sendable {
        var message: String
        /// The adapter is gone (it exited, crashed or never started), as opposed to slow or wrong.
        var gone = false
        /// The adapter wrote a reply line over the limit (a response body too large).
        var tooLarge = false
    }

    let pid: pid_t
    private let input: Int32
    private let state = Mutex<State>(State())
    private let errorTail = Mutex<[UInt8]>([])
    /// Guards the input descriptor: held while writing, set once it is closed, so the number is never reused under a writer.
    private let inputClosed = Mutex<Bool>(false)
    private static let tailLimit = 2048
    /// The longest reply line read; a longer one stops the adapter.
    private let lineLimit: Int

    private struct State {
        var lines: [String] = []
        var waiter: (token: Int, continuation: CheckedContinuation<String, any Error>)?
        var nextToken = 0
        var exitDescription: String?
        var tooLarge = false
        var killed = false
    }

    /// Starts the adapter; throws when the shell cannot be spawned.
    static func launch(command: String, environment: [String: String]?, lineLimit: Int) throws(Failure)
        -> AdapterProcess
    {
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

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment ?? [:] { merged[key] = value }
        let arguments: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { (text: String) in strdup(text) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { (pair) in strdup("\(pair.key)=\(pair.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }

        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        for fd in [stdinPipe[0], stdoutPipe[1], stderrPipe[1]] { close(fd) }
        guard result == 0 else {
            for fd in [stdinPipe[1], stdoutPipe[0], stderrPipe[0]] { close(fd) }
            throw Failure(message: "cannot start /bin/sh -c \(command): \(String(cString: strerror(result)))")
        }
        let process = AdapterProcess(pid: pid, input: stdinPipe[1], lineLimit: lineLimit)
        process.startReaders(output: stdoutPipe[0], errors: stderrPipe[0])
        return process
    }

    private init(pid: pid_t, input: Int32, lineLimit: Int) {
        self.pid = pid
        self.input = input
        self.lineLimit = lineLimit
    }

    /// Writes one line and waits for the next line the adapter prints, failing on exit or after `timeout`.
    func exchange(_ line: String, timeout: Duration) async throws -> String {
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        let input = self.input
        let bytes = Array((line + "\n").utf8)
        let reply = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<String, any Error>) in
            let ready: Result<String, any Error>? = state.withLock { state in
                if !state.lines.isEmpty { return .success(state.lines.removeFirst()) }
                if let exit = state.exitDescription { return .failure(Failure(message: exit, gone: !state.tooLarge)) }
                state.waiter = (token, continuation)
                return nil
            }
            if let ready {
                continuation.resume(with: ready)
                return
            }
            let writer = Thread { [self] in
                inputClosed.withLock { closed in
                    if !closed { Self.writeAll(bytes, to: input) }
                }
            }
            writer.start()
            // Whole milliseconds, at most a day: a library caller's huge timeout must not overflow the clock.
            let (seconds, attoseconds) = timeout.components
            let milliseconds = Int(min(max(seconds, 0), 86_400)) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(max(milliseconds, 1))) { [self] in
                fail(token: token, Failure(message: "no reply within \(timeout)"))
            }
        }
        return reply
    }

    /// The last lines the adapter wrote to stderr.
    var stderrTail: String {
        let bytes = errorTail.withLock { $0 }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Kills the adapter's whole process group; its reader thread then reaps it and closes the pipes.
    func terminate() {
        let first = state.withLock { state in
            defer { state.killed = true }
            return !state.killed
        }
        guard first else { return }
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
    }

    deinit { terminate() }

    private func fail(token: Int, _ failure: Failure) {
        let waiter = state.withLock { state -> CheckedContinuation<String, any Error>? in
            guard let waiter = state.waiter, waiter.token == token else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(throwing: failure)
    }

    private func deliver(_ line: String) {
        let waiter = state.withLock { state -> CheckedContinuation<String, any Error>? in
            guard let waiter = state.waiter else {
                state.lines.append(line)
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: line)
    }

    private func exited(_ description: String, tooLarge: Bool = false) {
        let waiter = state.withLock { state -> CheckedContinuation<String, any Error>? in
            state.exitDescription = description
            state.tooLarge = tooLarge
            let waiter = state.waiter
            state.waiter = nil
            return waiter?.continuation
        }
        waiter?.resume(throwing: Failure(message: description, gone: !tooLarge, tooLarge: tooLarge))
    }

    private func startReaders(output: Int32, errors: Int32) {
        let stderrDone = DispatchSemaphore(value: 0)
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
                    deliver(String(decoding: pending, as: UTF8.self))
                    pending.removeAll(keepingCapacity: true)
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
            } else {
                exited("\(exit) without replying")
            }
        }.start()
    }

    /// Writes on a thread that blocks SIGPIPE, so a dead adapter yields EPIPE instead of killing the process.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}
