import ConformTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The tests' way of starting programs (`SpawnedProcess`), spawned as Conform spawns its adapters: what a program
/// gets and how its end is told.
@Suite struct SpawnedProcessTests {
    /// Runs `/bin/sh -c script` with its standard output in a pipe; the output and the ended process.
    static func shell(
        _ script: String, environment: [String: String]? = nil, directory: URL? = nil
    ) throws -> (output: String, process: SpawnedProcess) {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.environment = environment
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        let exit = try ProcessExit(starting: process)
        // Reaches its end only if the test's copy of the writing end was closed once the program had its own.
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        #expect(exit.wait(limit: .seconds(60)), "the program did not end within 60 s")
        return (String(decoding: output, as: UTF8.self), process)
    }

    @Test func anExitCodeIsAnExitAndASignalIsASignal() throws {
        let exited = try Self.shell("exit 3").process
        #expect(exited.terminationReason == .exit)
        #expect(exited.terminationStatus == 3)
        #expect(!exited.isRunning)
        // The test process blocks and ignores signals of its own; the program starts with none blocked and the
        // default dispositions, so TERM ends it.
        let killed = try Self.shell("kill -TERM $$; sleep 5").process
        #expect(killed.terminationReason == .uncaughtSignal)
        #expect(killed.terminationStatus == SIGTERM)
    }

    @Test func theProgramGetsItsEnvironmentDirectoryAndArgumentsAsGiven() throws {
        let directory = try Scratch("spawned")
        let (output, process) = try Self.shell(
            #"pwd; printf '%s|' "$GREETING" "${HOME-unset}""#, environment: ["GREETING": "a b\tc"],
            directory: directory.url)
        #expect(process.terminationStatus == 0)
        let resolved = directory.url.resolvingSymlinksInPath().path
        #expect(output == "\(resolved)\na b\tc|unset|")
    }

    @Test func noDescriptorOfTheTestProcessReachesTheProgram() throws {
        // Sixty-four descriptors the test process holds open without close-on-exec.
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<64 {
            let fd = open("/dev/null", O_RDONLY)
            try #require(fd >= 0)
            held.append(fd)
        }
        for _ in 0..<20 {
            let (output, process) = try Self.shell("ls /proc/$$/fd")
            #expect(process.terminationStatus == 0)
            #expect(output.split(separator: "\n").sorted() == ["0", "1", "2"])
        }
    }

    @Test func aProgramThatCannotStartThrowsAndIsNeverRunning() {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/nonexistent/program")
        #expect(throws: SpawnedProcess.SpawnError.self) { try process.run() }
        #expect(!process.isRunning)
        #expect(process.processIdentifier == 0)
    }
}
