import ConformCore
import ConformDiagnostics
import ConformReport
import Foundation

/// The exploration's result in the one result model: a group of the sequences played (each a step: passed, an
/// assumption not met, could not run, or the one that diverged) and, after it, the target's run of the shrunk
/// suite (or of the sequence that could not run), so every reporter shows the failing step with its exchange.
extension Explorer {
    func finish(_ state: Progress, start: ContinuousClock.Instant, extra: [RunResult]) -> ExploreReport {
        // Every reporter shows the group's title: the seed, the budget and the coverage travel with it.
        let title =
            "Explored sequences (seed \(configuration.seed), budget \(configuration.budget), \(state.sequences) "
            + "played, coverage \(state.coverage.line))"
        let group = ResultGroup(
            kind: .suite, id: "explore", title: title,
            spec: SpecReference(section: "conform explore"), file: "explore")
        var suites = [SuiteResult(group: group, steps: state.steps, duration: 0)]
        for run in extra { suites += run.suites }
        let duration = (ContinuousClock.now - start).seconds
        var result = RunResult(
            command: .explore, suites: suites, duration: duration, target: configuration.targetDescription)
        result.notices = extra.flatMap(\.notices)
        var lines = state.lines
        let mode =
            configuration.exhaustiveDepth.map { "every sequence up to depth \($0) (symmetry-reduced)" }
            ?? "random sequences of up to \(configuration.maxLength) operations"
        lines.append(
            "Seed \(configuration.seed); budget \(configuration.budget); \(mode) over \(configuration.devices) installations and \(configuration.persons) persons, application '\(configuration.applicationMode)'."
        )
        lines.append(
            "Explored \(state.sequences) behaviour\(state.sequences == 1 ? "" : "s") (\(state.operations) operations) in \(String(format: "%.1f", duration)) s."
        )
        lines.append("Coverage: \(state.coverage.line).")
        if let path = state.suitePath {
            lines.append(
                "Shrunk suite: \(path) (\(state.shrinkAttempts) shrinking attempts, \(String(format: "%.2f", state.shrinkSeconds)) s); replay it with: conform run \(path)"
            )
        } else if result.status == .conforms {
            lines.append(
                "Nothing diverged within the budget: this is no proof of conformance; widen the budget or change the seed to look further."
            )
        }
        return ExploreReport(
            result: result, lines: lines, suitePath: state.suitePath, sequences: state.sequences,
            operations: state.operations, coverage: state.coverage, shrinkAttempts: state.shrinkAttempts,
            shrinkSeconds: state.shrinkSeconds)
    }

    func step(_ index: Int, _ name: String, _ verdict: Verdict, _ error: String?) -> StepResult {
        StepResult(
            suiteID: "explore", flow: "sequences", index: index - 1, name: name, file: "explore",
            mark: SourceMark(line: index, column: 1),
            spec: SpecReference(section: "conform explore"), verdict: verdict, error: error)
    }

    /// `12 operations: register d1, personalize d1 as p1 …` (the first few).
    static func summary(_ sequence: ExploreSequence, _ writer: SuiteWriter) -> String {
        let names = sequence.steps.prefix(4).map { writer.exploration.operations[$0.operation].name }
        let more = sequence.steps.count > 4 ? ", …" : ""
        return
            "\(sequence.steps.count) operation\(sequence.steps.count == 1 ? "" : "s") (\(names.joined(separator: ", "))\(more))"
    }

    /// What a shrunk suite's description says: where it comes from and how to read it.
    static func description(_ sequence: ExploreSequence, _ writer: SuiteWriter, seed: UInt64) -> String {
        "Written by conform explore (seed \(seed)). Each step is one operation of the protocol; what it expects is "
            + "what the embedded reference answered to the same sequence, under the same must/assumed rules as the "
            + "bundled suites. It passes against the reference and failed against the target it was found on. "
            + "Devices are d1…, persons p1…, their tags g1…, push texts t1…, fresh on every run; received1… are the "
            + "ids of the messages a sync handed out, captured on each side and sent back in its reports."
    }

    /// `result` with the step at `index` marked as one that could not run (the target answered 5xx or nothing).
    static func marked(_ result: RunResult, _ index: Int, _ reason: String) -> RunResult {
        var result = result
        var seen = 0
        for s in result.suites.indices {
            for t in result.suites[s].steps.indices {
                if seen == index {
                    result.suites[s].steps[t].verdict = .error
                    result.suites[s].steps[t].errors.append(StepError(.text, reason))
                }
                seen += 1
            }
        }
        return result
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Every sequence of exactly `depth` steps (or shorter where nothing can follow), in order, with persons used in
/// order of first use and devices numbered as registered: sequences that differ only by renaming persons or
/// devices are played once. Prefixes are not played apart: each is judged step by step inside its extensions.
struct ExhaustiveWalk: Sendable {
    var generator: SequenceGenerator
    var depth: Int
    private var stack: [(prefix: ExploreSequence, options: [ExploreStep], next: Int)] = []
    private var started = false

    init(generator: SequenceGenerator, depth: Int) {
        self.generator = generator
        self.depth = depth
    }

    mutating func next() -> ExploreSequence? {
        if !started {
            started = true
            let root = ExploreSequence([])
            stack = [(root, generator.candidates(after: root), 0)]
        }
        while var top = stack.popLast() {
            guard top.next < top.options.count else { continue }
            let sequence = ExploreSequence(top.prefix.steps + [top.options[top.next]])
            top.next += 1
            stack.append(top)
            if sequence.steps.count >= depth { return sequence }
            let options = generator.candidates(after: sequence)
            if options.isEmpty { return sequence }
            stack.append((sequence, options, 0))
        }
        return nil
    }
}
