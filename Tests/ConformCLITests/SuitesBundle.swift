import ConformCore
import ConformCurl
import ConformMobileMessaging
import ConformReference
import ConformReport
import ConformRunner
import ConformServer
import ConformTestSupport
import Foundation

/// The suites shipped in `suites/`, loaded once from the repository this file lives in.
enum SuitesBundle {
    /// The repository root, three levels above this file.
    static let root = TestPaths.root

    /// Base URLs of the embedded reference; the in-process transport ignores scheme and host.
    static let builtinVariables = ProtocolProfile.mobileMessaging.referenceBaseURLs

    /// Every `suites/*.yaml` file, sorted by name (the flow order), relative to the root.
    static func files() throws -> [String] {
        let directory = root.appendingPathComponent("suites")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            .sorted()
            .map { "suites/" + $0 }
    }

    /// Loads every bundled suite; a suite that does not load throws its rendered diagnostics.
    static func load() throws -> [Suite] {
        let loader = SuiteLoader(profile: .mobileMessaging)
        var suites: [Suite] = []
        for file in try files() {
            let data = try Data(contentsOf: root.appendingPathComponent(file))
            do {
                suites.append(try loader.load(bytes: [UInt8](data), file: file))
            } catch {
                throw SuitesLoadFailure(file: file, problems: error.diagnostics.map { "\($0)" })
            }
        }
        return suites
    }

    /// The window the tests give eventual effects (suites default to 10 s): long enough for every asynchronous
    /// variant of the reference (delivery within 800 ms, People reads 300 ms late, 150 ms per exchange), short
    /// enough that a fault failing an eventual check costs the matrix seconds, not minutes.
    static let asyncWindow = "3s"

    /// How long one exchange may take in the tests: a bound that catches a hang, never a busy machine (the matrices
    /// run many runs at once beside CPU burners, and an in-process exchange then waits its turn for a thread).
    static let exchangeTimeout = Duration.seconds(60)

    /// A plan that runs `suites` with the target's base URLs and the `jwt` template function.
    static func plan(_ suites: [Suite], variables: [String: String] = builtinVariables, target: String) -> RunPlan {
        RunPlan(
            suites: suites, overrides: ["asyncWindow": asyncWindow], targetDefaults: variables,
            exchangeTimeout: exchangeTimeout, targetDescription: target, functions: MobileMessaging.functions)
    }

    /// Runs `suites` against the embedded reference with `faults` and `variants` switched on (in process; the
    /// reference is its own transport, so the latency variant suspends instead of blocking a thread). `jittered`
    /// puts a random pause before each exchange (``JitteredTransport``), so a suite's flows interleave another way.
    static func runInProcess(
        _ suites: [Suite], faults: Set<ReferenceFault>, variants: Set<ReferenceVariant> = [], jittered: Bool = false
    ) async -> RunResult {
        let reference = ReferenceImplementation(configuration: .default, faults: faults, variants: variants)
        let switched = faults.map(\.rawValue).sorted() + variants.map { "variant " + $0.rawValue }.sorted()
        let target = switched.isEmpty ? "reference" : "reference with " + switched.joined(separator: ", ")
        let transport: any Transport = jittered ? JitteredTransport(inner: reference) : reference
        return await Runner(transport: transport).run(plan(suites, target: target))
    }

    /// Serves `handler` on 127.0.0.1 (any free port) and runs every bundled suite against it through curl.
    static func runServed(_ handler: any HTTPHandler, limits: HTTPServerLimits = .default) async throws -> RunResult {
        let server = try HTTPServer(handler: handler, limits: limits)
        try server.start()
        defer { server.stop() }
        let base = server.baseURL
        let plan = plan(try load(), variables: ["mobile": base, "backend": base], target: base)
        return await Runner(transport: CurlTransport(timeout: exchangeTimeout)).run(plan)
    }

    /// One line per step that did not pass, for test failure messages.
    static func problems(in result: RunResult) -> String {
        result.steps.filter { $0.verdict != .pass }.map { step in
            var line = "\(step.suiteID) › \(step.flow) › \(step.index + 1). \(step.name): \(step.verdict.rawValue)"
            if let error = step.error { line += " (\(error))" }
            for failure in step.failures {
                for mismatch in failure.mismatches {
                    line += "\n    \(mismatch.path): expected \(mismatch.expected), actual \(mismatch.actual)"
                }
            }
            return line
        }.joined(separator: "\n")
    }
}

/// `inner` behind a random pause of up to ``longestPauseMicroseconds`` before each exchange. The flows of a suite run
/// at once and meet only at their waits; the pauses let them overtake each other where no wait orders them.
struct JitteredTransport: Transport {
    static let longestPauseMicroseconds = 5_000
    let inner: any Transport

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await Task.sleep(for: .microseconds(Int.random(in: 0...Self.longestPauseMicroseconds)))
        return try await inner.send(request)
    }
}

/// A bundled suite that does not load.
struct SuitesLoadFailure: Error, CustomStringConvertible {
    var file: String
    var problems: [String]
    var description: String { "\(file) does not load:\n" + problems.joined(separator: "\n") }
}
