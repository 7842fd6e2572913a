import CSpawn
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program a test starts, with the part of `Foundation.Process`'s interface the tests use, spawned with
/// `posix_spawn` as Conform spawns its adapters.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3) lists `/proc/self/fd` to close the test process's descriptors in
/// the child, and copies each entry's whole 256-byte name field: when an entry sits at the end of the C library's
/// directory buffer, the copy reads past it. With the hundreds of descriptors a parallel test run holds open, clean-clone
/// runs crashed there (SIGSEGV in `memmove` under `Process.run()`), one run in a few, however launches were
/// serialised. This type never lists descriptors: the child closes every one from 3 up as it starts.
public final class SpawnedProcess: @unchecked Sendable {
    /// How the program ended.
    public enum TerminationReason: Sendable, Equatable {
        case exit
        case uncaughtSignal
    }

    /// What went wrong starting the program.
    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The program; an absolute path.
    public var executableURL: URL?
    /// Its arguments, after its own path.
    public var arguments: [String] = []
    /// Its whole environment; `nil` passes the test process's.
    public var environment: [String: String]?
    /// Its working directory; `nil` keeps the test process's.
    public var currentDirectoryURL: URL?
    /// What the program reads: a `FileHandle`, a `Pipe` (it gets the reading end), or `nil` for the test process's.
    public var standardInput: Any?
    /// Where the program writes: a `FileHandle`, a `Pipe` (it gets the writing end), or `nil` for the test process's.
    public var standardOutput: Any?
    /// Where the program writes its errors, as ``standardOutput``.
    public var standardError: Any?
    /// Called once, on a thread of its own, when the program has ended and ``terminationStatus`` is final.
    public var terminationHandler: (@Sendable (SpawnedProcess) -> Void)?

    private struct State {
        var pid: pid_t = 0
        /// The raw status `waitpid` reported, once the program ended.
        var status: Int32?
    }

    private let state = Mutex(State())

    public init() {}

    /// The program's process id, 0 before it starts.
    public var processIdentifier: Int32 { state.withLock { $0.pid } }

    /// Whether the program started and has not ended yet.
    public var isRunning: Bool { state.withLock { $0.pid != 0 && $0.status == nil } }

    /// The exit code, or the number of the signal that ended it; only once it ended.
    public var terminationStatus: Int32 {
        let status = finalStatus()
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Whether it exited or a signal ended it; only once it ended.
    public var terminationReason: TerminationReason { finalStatus() & 0x7f == 0 ? .exit : .uncaughtSignal }

    private func finalStatus() -> Int32 {
        guard let status = state.withLock({ $0.status }) else {
            preconditionFailure("the program has not ended yet: wait for it first")
        }
        return status
    }

    /// Starts the program: in a process group of its own, with default signal dispositions and no signal blocked,
    /// and with no descriptor of the test process but the three it is given.
    public func run() throws {
        guard let executable = executableURL?.path else { throw SpawnError(description: "no executable is set") }
        guard state.withLock({ $0.pid == 0 }) else {
            throw SpawnError(description: "\(executable) was started already")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [FileHandle] = []
        for (stream, target) in [(standardInput, Int32(0)), (standardOutput, 1), (standardError, 2)] {
            let handle: FileHandle
            switch stream {
            case let given as FileHandle: handle = given
            case let pipe as Pipe:
                handle = target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                if !childEnds.contains(where: { $0 === handle }) { childEnds.append(handle) }
            default: continue
            }
            posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
        }
        if let directory = currentDirectoryURL?.path {
            let result = conform_spawn_chdir(&actions, directory)
            guard result == 0 else { throw SpawnError(description: "cannot enter \(directory): \(Self.text(result))") }
        }
        let closing = conform_spawn_close_from(&actions, 3)
        guard closing == 0 else { throw SpawnError(description: "cannot prepare the start: \(Self.text(closing))") }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        let attributed = conform_spawn_own_group_default_signals(&attributes)
        guard attributed == 0 else {
            throw SpawnError(description: "cannot prepare the start: \(Self.text(attributed))")
        }

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { variables in
            variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for pointer in argv + (envp ?? []) { free(pointer) } }
        var pid: pid_t = 0
        let result =
            if let envp { posix_spawn(&pid, executable, &actions, &attributes, argv, envp) } else {
                posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            }
        guard result == 0 else { throw SpawnError(description: "cannot start \(executable): \(Self.text(result))") }
        // The child holds its ends of the pipes now; the test's copies would keep a reader from ever seeing the end.
        for end in childEnds { try? end.close() }
        state.withLock { $0.pid = pid }
        let reaper = Thread { [self, pid] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            state.withLock { $0.status = status }
            terminationHandler?(self)
        }
        reaper.name = "spawned-process-reaper"
        reaper.start()
    }

    /// Sends SIGTERM while the program runs.
    public func terminate() { send(SIGTERM) }

    /// Sends SIGINT while the program runs.
    public func interrupt() { send(SIGINT) }

    private func send(_ signal: Int32) {
        state.withLock { state in
            if state.pid != 0 && state.status == nil { kill(state.pid, signal) }
        }
    }

    private static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
