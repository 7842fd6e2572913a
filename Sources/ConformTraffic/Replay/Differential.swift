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

    public var description: String {
        var lines = ["step \(seq) (flow \(flow)): \(method) \(target)"]
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

    public var identical: Bool { differing == 0 }
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
    public func run(_ exchanges: [RecordedExchange], onStep: (DifferentialStep) -> Void = { _ in }) async throws
        -> DifferentialReport
    {
        try await run(sequence: AsyncArraySequence(exchanges), onStep: onStep)
    }

    /// Streams a trace's exchanges (any format); their tally counts what the reading skipped.
    public func run(
        _ trace: TraceExchanges, onStep: (DifferentialStep) -> Void = { _ in }
    ) async throws -> DifferentialReport {
        try await run(sequence: trace, onStep: onStep)
    }

    /// Streams `sequence`; `onStep` sees every step, alike or not, as it is compared.
    public func run<S: AsyncSequence>(sequence: S, onStep: (DifferentialStep) -> Void = { _ in }) async throws
        -> DifferentialReport
    where S.Element == RecordedExchange {
        var mapA = IdentifierMap(options.substitutions)
        var mapB = IdentifierMap(options.substitutions)
        var backA = IdentifierMap()
        var backB = IdentifierMap()
        var report = DifferentialReport()
        for try await exchange in sequence {
            let requestA = mapA.apply(exchange.request)
            let requestB = mapB.apply(exchange.request)
            async let liveA = outcome(a, requestA)
            async let liveB = outcome(b, requestB)
            let (ra, rb) = await (liveA, liveB)
            let recorded = JSONValue.parsedBody(ContentDecoding.decoded(exchange.response).body)
            var step = DifferentialStep(
                seq: exchange.seq, flow: exchange.flow, method: exchange.request.method,
                target: exchange.request.target,
                differences: [], errorA: nil, errorB: nil)
            switch (ra, rb) {
            case (.success(let x), .success(let y)):
                if let recorded {
                    if let j = JSONValue.parsedBody(x.body) {
                        for pair in mapA.learn(recorded: recorded, live: j, keys: options.mintedKeys) {
                            backA.set(pair.live, pair.recorded)
                        }
                    }
                    if let j = JSONValue.parsedBody(y.body) {
                        for pair in mapB.learn(recorded: recorded, live: j, keys: options.mintedKeys) {
                            backB.set(pair.live, pair.recorded)
                        }
                    }
                }
                let nx = backA.apply(x)
                let ny = backB.apply(y)
                step.differences = ResponseDiff.compare(expected: nx, actual: ny, noise: noise)
            case (.failure(let e), .success): step.errorA = e.message
            case (.success, .failure(let e)): step.errorB = e.message
            case (.failure(let x), .failure(let y)):
                if x != y {
                    step.errorA = x.message
                    step.errorB = y.message
                }
            }
            report.total += 1
            onStep(step)
            if step.differences.isEmpty, step.errorA == nil, step.errorB == nil {
                report.same += 1
            } else {
                report.differing += 1
                if report.steps.count < maxKeptSteps { report.steps.append(step) }
            }
        }
        return report
    }

    /// One side's answer, sent on the side's preferred executor and within ``ReplayOptions/exchangeTimeout`` when
    /// one is set.
    private func outcome(_ side: any Transport, _ request: HTTPRequest) async -> Result<HTTPResponse, DiffFailure> {
        let transport: any Transport =
            options.exchangeTimeout.map { DeadlineTransport(inner: side, deadline: $0) } ?? side
        return await transport.preferringExecutor {
            do {
                // Compression is representation, not behaviour: bodies are compared as the application reads them.
                return .success(ContentDecoding.decoded(try await transport.send(request)))
            } catch {
                return .failure(DiffFailure((error as? TransportError)?.description ?? "\(error)"))
            }
        }
    }
}

struct DiffFailure: Error, Hashable {
    let message: String
    init(_ message: String) { self.message = message }
}
