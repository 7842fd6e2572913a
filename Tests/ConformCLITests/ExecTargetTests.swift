import ConformCLI
import ConformReference
import ConformReport
import ConformRunner
import ConformServer
import ConformTestSupport
import Foundation
import Testing

/// The bundled suites through the documented Python adapters (serial and concurrent), which forwards to the reference served over HTTP.
@Suite struct ExecTargetTests {
    static let root = TestPaths.root

    @Test(arguments: ["http_forward.py", "http_forward_concurrent.py"])
    func theBundledSuitesConformThroughTheExampleAdapter(_ example: String) async throws {
        let server = try HTTPServer(handler: ReferenceImplementation())
        try server.start()
        defer { server.stop() }
        let adapter = Self.root.appendingPathComponent("examples/adapters/\(example)").path
        let out = MemorySink()
        let err = MemorySink()
        let io = CommandIO(out: out, err: err, color: false, environment: [:], currentDirectory: Self.root.path)
        let code = await ConformCommand.main(
            ["conform", "run", "--target", "exec:IMPL_BASE_URL=\(server.baseURL) python3 -u \(adapter)"], io: io)
        #expect(code == 0, "conform run printed:\n\(out.text)\(err.text)")
        #expect(out.text.hasSuffix("Result: CONFORMS\n"))
    }

    /// An adapter that is missing, dies without replying or closes its stdout says nothing about the implementation:
    /// exit 2.
    @Test(arguments: ["/nonexistent/conform-adapter", "exit 0", "kill -SEGV $$", "exec >&-; sleep 300"])
    func aMissingOrCrashingAdapterCouldNotRun(_ command: String) async throws {
        let out = MemorySink()
        let err = MemorySink()
        let io = CommandIO(out: out, err: err, color: false, environment: [:], currentDirectory: Self.root.path)
        let code = await ConformCommand.main(
            ["conform", "run", "suites/01-registration.yaml", "--target", "exec:\(command)"], io: io)
        #expect(code == 2, "conform run printed:\n\(out.text)\(err.text)")
        #expect(out.text.hasSuffix("Result: COULD NOT RUN\n"))
        #expect(out.text.contains("adapter could not run"))
    }

    /// An adapter that prints a log line on stdout, where only replies belong, broke the protocol: exit 2, naming the
    /// line, and no step reads as a failure of the implementation.
    @Test func anAdapterThatLogsOnStdoutCouldNotRun() async throws {
        let out = MemorySink()
        let err = MemorySink()
        let io = CommandIO(out: out, err: err, color: false, environment: [:], currentDirectory: Self.root.path)
        let code = await ConformCommand.main(
            [
                "conform", "run", "suites/01-registration.yaml", "--target",
                "exec:while read -r line; do echo 'debug: got a request'; done",
            ], io: io)
        #expect(code == 2, "conform run printed:\n\(out.text)\(err.text)")
        #expect(out.text.hasSuffix("Result: COULD NOT RUN\n"))
        #expect(out.text.contains("adapter protocol error"))
        #expect(out.text.contains("debug: got a request"))
        #expect(!out.text.contains(" 1 failed"), "\(out.text)")
    }
}
