import ConformCore
import Foundation

/// One step where two implementations answered the same request differently.
public struct DifferentialStep: Sendable, Hashable, CustomStringConvertible {
    public var seq: Int
    public var flow: String
    /// The request as recorded (before remapping).
    public var method: HTTPMethod
    public var target: String
    /// Differences, with A's answer as `expected` and B's as `actual`.
    public var differences: [Mismatch]
    public var errorA: String?
    public var errorB: String?
    /// Why the two answers cannot be compared (a gateway answered for one side, the recording lacks what is
    /// needed); `nil` when they were.
    public var cannotJudge: String? = nil
    /// How many times `--retry` sent the exchange again, to either side.
    public var retries = 0
    /// What the run tells once about why a side did not answer (a TLS failure's cause and fix).
    public var notice: String?

    public var description: String {
        var lines = ["step \(seq) (flow \(flow)): \(method) \(target)"]
        if let cannotJudge { lines.append("  cannot judge: \(cannotJudge)") }
        if let errorA { lines.append("  A failed: \(errorA)") }
        if let errorB { lines.append("  B failed: \(errorB)") }
        lines += differences.map {
            "  \($0.label): A \($0.expected), B \($0.actual)"
        }
        return lines.joined(separator: "\n")
    }
}

/// The outcome of a differential run.
public struct DifferentialReport: Sendable, Hashable {
    public var total = 0
    public var same = 0
    /// Steps that differed, in recorded order (at most `maxKeptSteps`).
    public var steps: [DifferentialStep] = []
    public var differing = 0
    /// Exchanges the trace cannot compare (see ``DifferentialStep/cannotJudge``): not counted in `total`.
    public var unjudged = 0

    /// Every exchange compared and none differed: an exchange that could not be compared is not the same.
    public var identical: Bool { differing == 0 && unjudged == 0 }
}

/// Sends the same exchanges to two implementations, each with its own id remapping, and reports where they differ.
public struct Differential: Sendable {
    public let a: any Transport
    public let b: any Transport
    public let noise: NoiseRules
    public let options: ReplayOptions
    public var maxKeptSteps = 1000

    public init(
        a: any Transport, b: any Transport, noise: NoiseRules = .default, options: ReplayOptions = ReplayOptions()
    ) {
        self.a = a
        self.b = b
        self.noise = noise
        self.options = options
    }

    /// Runs exchanges in memory, step by step in recorded order.
    public func run(
        _ exchanges: [RecordedExchange], onStep: @escaping @Sendable (DifferentialStep) -> Void = { _ in }
    ) async throws
        -> DifferentialReport
    {
        try await run(sequence: AsyncArraySequence(exchanges), onStep: onStep)
    }

    /// Streams a trace's exchanges (any format); their tally counts what the reading skipped.
    public func run(
        _ trace: TraceExchanges, onStep: @escaping @Sendable (DifferentialStep) -> Void = { _ in }
    ) async throws -> DifferentialReport {
        try await run(sequence: trace, onStep: onStep)
    }

    /// Streams `sequence` through a ``Replayer`` whose expected side is A: one scheduler, pace, concurrency and the
    /// same cannot-judge rules as a replay. `onStep` sees every step, alike or not, as it is compared; the report
    /// keeps the steps that differ in recorded order.
    public func run<S: AsyncSequence & Sendable>(
        sequence: S, onStep: @escaping @Sendable (DifferentialStep) -> Void = { _ in }
    ) async throws -> DifferentialReport where S.Element == RecordedExchange {
        var options = self.options
        options.maxKeptMismatches = maxKeptSteps
        let replayer = Replayer(transport: b, noise: noise, options: options, expectedSide: a)
        let summary = try await replayer.replay(sequence: sequence) { outcome in onStep(Self.step(outcome)) }
        var report = DifferentialReport()
        report.total = summary.total - summary.unjudged
        report.differing = summary.mismatched + summary.failed
        report.same = report.total - report.differing
        report.unjudged = summary.unjudged
        report.steps = Array(
            summary.mismatches.filter { $0.cannotJudge == nil }.map(Self.step).sorted { $0.seq < $1.seq }
                .prefix(maxKeptSteps))
        return report
    }

    /// A compared exchange as a step, named by its recorded request.
    static func step(_ outcome: ReplayOutcome) -> DifferentialStep {
        let request = outcome.recorded ?? outcome.request
        var step = DifferentialStep(
            seq: outcome.seq, flow: outcome.flow, method: request.method, target: request.target,
            differences: outcome.differences, errorA: nil, errorB: outcome.transportError)
        step.cannotJudge = outcome.cannotJudge
        step.retries = outcome.retries
        step.notice = outcome.notice
        return step
    }
}

struct DiffFailure: Error, Hashable {
    let message: String
    /// What the run tells once about this failure (``TransportError/notice``).
    var notice: String?
    init(_ message: String) { self.message = message }
}
