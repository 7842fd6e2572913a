import ConformCore
import ConformReference
import ConformReport
import ConformRunner
import ConformServer
import ConformTestSupport
import ConformTransports
import Foundation
import Testing

/// The ways an implementation or a machine can be slow that must never change a verdict.
enum SlowCondition: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// An SDK driven on an emulator: an adapter that takes one request at a time and adds 0.3 s to each.
    case serialDevice
    /// A device farm: an adapter that takes 8 requests at once and adds 0 to 500 ms at random, answering out of order.
    case jitteryDevice
    /// A shared CI runner: two processes burn the CPU (see ``during(_:)``) while the embedded reference is tested in
    /// process.
    case busyMachine

    var testDescription: String { rawValue }

    static let adapter = SuitesBundle.root.appendingPathComponent("Tests/ConformCLITests/Adapters/slow_forward.py").path

    /// Runs `suites` against the reference with `faults`, slowed down this way.
    func run(_ suites: [Suite], faults: Set<ReferenceFault> = []) async throws -> RunResult {
        let reference = ReferenceImplementation(configuration: .default, faults: faults)
        let name =
            "\(rawValue)\(faults.isEmpty ? "" : " with " + faults.map(\.rawValue).sorted().joined(separator: ","))"
        switch self {
        case .serialDevice, .jitteryDevice:
            let server = try HTTPServer(handler: reference)
            try server.start()
            defer { server.stop() }
            let environment =
                self == .serialDevice
                ? ["SLOW_DELAY": "0.3"] : ["SLOW_JITTER": "0.5", "SLOW_CONCURRENCY": "8"]
            let transport = ExecTransport(
                command: "exec python3 -u '\(Self.adapter)'",
                environment: environment.merging(["IMPL_BASE_URL": server.baseURL]) { $1 },
                timeout: SuitesBundle.exchangeTimeout)
            // An adapter decides where requests go: it gets origin-form URLs, as `conform run --target exec:…` does.
            let plan = SuitesBundle.plan(suites, variables: ["mobile": "", "backend": ""], target: name)
            return await Runner(transport: transport).run(plan)
        case .busyMachine:
            return await Runner(transport: reference).run(SuitesBundle.plan(suites, target: name))
        }
    }

    /// Runs `body` under this condition's load: for the busy machine, two processes burn the CPU the whole time
    /// (once for all the runs `body` makes, however many go at once).
    func during<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard self == .busyMachine else { return try await body() }
        let burners = try (0..<2).map { _ in try CPUBurner() }
        defer { for burner in burners { burner.stop() } }
        return try await body()
    }
}

/// A process that keeps one core busy until stopped, or until the test process that started it goes away
/// (its stdin closes), or after five minutes at most.
final class CPUBurner: Sendable {
    private let process: SpawnedProcess
    private let input: Pipe
    private let exit: ProcessExit

    init() throws {
        process = SpawnedProcess()
        input = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import os, sys, threading, time\n"
                + "threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()\n"
                + "end = time.monotonic() + 300\n"
                + "while time.monotonic() < end: pass\n",
        ]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        exit = try ProcessExit(starting: process)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        exit.wait()
    }
}
