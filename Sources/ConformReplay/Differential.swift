import ConformCore
import ConformReport
import ConformTraffic
import Foundation
import Synchronization

/// Sends the same exchanges to two implementations, each with its own id remapping, and reports where they differ.
public struct Differential: Sendable {
    public let a: any Transport
    public let b: any Transport
    public let noise: NoiseRules
    public let options: ReplayOptions

    public init(
        a: any Transport, b: any Transport, noise: NoiseRules = .default, options: ReplayOptions = ReplayOptions()
    ) {
        self.a = a
        self.b = b
        self.noise = noise
        self.options = options
    }

    /// Runs exchanges in memory: the result of a diff of `trace`, each group's steps in recorded order.
    public func run(_ exchanges: [RecordedExchange], trace: String = "exchanges") async throws -> RunResult {
        try await collected(trace) { try await run(sequence: AsyncArraySequence(exchanges), trace: trace, onStep: $0) }
    }

    /// Streams a trace's exchanges (any format) into a result; their tally counts what the reading skipped.
    public func run(_ exchanges: TraceExchanges, trace: String = "exchanges") async throws -> RunResult {
        try await collected(trace) { try await run(sequence: exchanges, trace: trace, onStep: $0) }
    }

    private func collected(
        _ trace: String, _ body: (@escaping @Sendable (StepResult, ResultGroup) -> Void) async throws -> Void
    ) async throws -> RunResult {
        let collector = ResultCollector()
        try await body { collector.add($0, to: $1) }
        return collector.result(.diff, target: "A, B", duration: 0, sortedByLine: true)
    }

    /// Streams a trace's exchanges through ``run(sequence:trace:onStep:)`` and returns the line that counts them by
    /// verdict, as the result will: compared, the same, different, and could not be judged.
    public func compare(
        _ exchanges: TraceExchanges, trace: String, onStep: @escaping @Sendable (StepResult, ResultGroup) -> Void
    ) async throws -> String {
        let verdicts = Mutex<[Verdict: Int]>([:])
        try await run(sequence: exchanges, trace: trace) { step, group in
            verdicts.withLock { $0[step.verdict, default: 0] += 1 }
            onStep(step, group)
        }
        let counts = verdicts.withLock { $0 }
        let (same, unjudged) = (counts[.pass, default: 0], counts[.skipped, default: 0])
        let judged = counts.values.reduce(0, +) - unjudged
        let line = "\(trace): \(Noun("exchange").counted(judged)), \(same) the same, \(judged - same) different"
        return line + (unjudged > 0 ? ", \(unjudged) could not be judged" : "")
    }

    /// Streams `sequence` through a ``Replayer`` whose expected side is A: one scheduler, pace, concurrency and the
    /// same cannot-judge rules as a replay. `onStep` gets every exchange as a step of the diff of `trace` (passed,
    /// different, or could not be judged) with its device flow's group, as it is compared.
    public func run<S: AsyncSequence & Sendable>(
        sequence: S, trace: String, onStep: @escaping @Sendable (StepResult, ResultGroup) -> Void
    ) async throws where S.Element == RecordedExchange {
        var options = self.options
        // The steps carry every difference: the replayer keeps none of its own.
        options.maxKeptMismatches = 0
        let replayer = Replayer(transport: b, noise: noise, options: options, expectedSide: a)
        _ = try await replayer.replay(sequence: sequence) { outcome in
            onStep(
                ReplayResults.difference(outcome, trace: trace),
                ReplayResults.group(flow: outcome.flow, trace: trace, title: "Diff of \(trace)"))
        }
    }
}

struct DiffFailure: Error, Hashable {
    let message: String
    /// What the run tells once about this failure (``TransportError/notice``).
    var notice: String?
    init(_ message: String) { self.message = message }
}
