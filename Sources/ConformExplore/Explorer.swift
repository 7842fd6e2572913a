import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import Foundation

/// What an exploration found, for the session: its result (the reporters' one model) and the lines that say what
/// was explored (seed, budget, behaviours, coverage, the shrunk suite).
public struct ExploreReport: Sendable {
    public var result: RunResult
    public var lines: [String]
    /// The shrunk suite written under `--out`, when a sequence diverged.
    public var suitePath: String?
    /// How many sequences were played.
    public var sequences: Int
    /// How many operations they held.
    public var operations: Int
    public var coverage: ExploreCoverage
    /// How many shrinking attempts were played, and how long shrinking took.
    public var shrinkAttempts: Int
    public var shrinkSeconds: Double
}

/// `conform explore`: plays sequences drawn from the profile's operations on the target and on a fresh reference,
/// until one diverges or the budget is spent; a divergence is shrunk and written as a suite.
public struct Explorer: Sendable {
    public var configuration: ExploreConfiguration
    public var target: any Transport

    /// An exploration of `configuration`'s application mode: of the profile's operations, those drawn in that mode.
    public init(configuration: ExploreConfiguration, target: any Transport) {
        var configuration = configuration
        let mode = configuration.applicationMode
        configuration.profile.exploration.operations.removeAll {
            !$0.applications.isEmpty && !$0.applications.contains(mode)
        }
        self.configuration = configuration
        self.target = target
    }

    var player: SequencePlayer { SequencePlayer(configuration: configuration, target: target) }

    public func run() async -> ExploreReport {
        let start = ContinuousClock.now
        var state = Progress(coverage: ExploreCoverage(operations: configuration.profile.exploration.operations))
        if let report = await replaySaved(start: start, state: &state) { return report }
        let generator = SequenceGenerator(
            operations: configuration.profile.exploration.operations, devices: configuration.devices,
            persons: configuration.persons, maxLength: configuration.maxLength)
        var random = SeededRandom(seed: configuration.seed)
        var exhaustive = configuration.exhaustiveDepth.map { ExhaustiveWalk(generator: generator, depth: $0) }
        while !spent(state, since: start) {
            let sequence: ExploreSequence
            if exhaustive != nil {
                guard let next = exhaustive!.next() else { break }
                sequence = next
            } else {
                sequence = generator.draw(&random)
            }
            state.sequences += 1
            state.operations += sequence.steps.count
            let played = await player.play(sequence, id: "explore-\(state.sequences)")
            state.coverage.reached.formUnion(played.states)
            let describe = SuiteWriter(
                exploration: configuration.profile.exploration, application: configuration.application,
                applicationMode: configuration.applicationMode)
            let name = "sequence \(state.sequences): " + Self.summary(sequence, describe)
            switch played.outcome {
            case .same:
                state.steps.append(step(state.sequences, name, .pass, nil))
            case .assumptionNotMet(let index, let decision):
                state.steps.append(
                    step(
                        state.sequences, name, .assumptionNotMet,
                        "step \(index + 1) differs where \(decision) only assumes; the rest of the sequence is not judged"
                    ))
            case .couldNotRun(let index, let reason):
                state.steps.append(step(state.sequences, name, .error, "step \(index + 1): \(reason)"))
                return finish(state, start: start, extra: played.result.map { [Self.marked($0, index, reason)] } ?? [])
            case .diverged:
                return await diverged(sequence, played, state: state, start: start)
            }
        }
        return finish(state, start: start, extra: [])
    }

    struct Progress: Sendable {
        var sequences = 0
        var operations = 0
        var coverage: ExploreCoverage
        var steps: [StepResult] = []
        var lines: [String] = []
        var suitePath: String?
        var shrinkAttempts = 0
        var shrinkSeconds = 0.0
    }

    private func spent(_ state: Progress, since start: ContinuousClock.Instant) -> Bool {
        switch configuration.budget {
        case .sequences(let n): state.sequences >= n
        case .duration(let d): ContinuousClock.now - start >= d
        }
    }

    /// Shrinks the divergence, writes the suite under `--out` (or a temporary directory), and runs the written file
    /// once more on the target so the report cites it.
    private func diverged(
        _ sequence: ExploreSequence, _ played: PlayedSequence, state: Progress, start: ContinuousClock.Instant
    ) async -> ExploreReport {
        var state = state
        let shrinkStart = ContinuousClock.now
        let shrunk = await Shrinker(player: player).shrink(sequence, played: played)
        state.shrinkAttempts = shrunk.attempts
        state.shrinkSeconds = (ContinuousClock.now - shrinkStart).seconds
        let id = "explore-seed\(configuration.seed)-\(state.sequences)"
        let writer = SuiteWriter(
            exploration: configuration.profile.exploration, application: configuration.application,
            applicationMode: configuration.applicationMode)
        // The judging suite again, under its own id and with a description of where it comes from.
        let text = shrunk.played.suiteText
            .replacingOccurrences(of: "suite: explore-shrink\n", with: "suite: \(id)\n")
            .replacingOccurrences(of: "suite: explore-\(state.sequences)\n", with: "suite: \(id)\n")
            .replacingOccurrences(
                of: "title: \"Explored sequence\"",
                with:
                    "title: \(JSONValue.string("Found by conform explore (seed \(configuration.seed), sequence \(state.sequences)), shrunk to \(shrunk.sequence.steps.count) operations").serialized())"
            )
            .replacingOccurrences(
                of: "description: \"\"",
                with:
                    "description: \(JSONValue.string(Self.description(shrunk.sequence, writer, seed: configuration.seed)).serialized())"
            )
        let path: String
        switch write(text, id: id) {
        case .success(let written): path = written
        case .failure(let error):
            state.steps.append(step(state.sequences, "writing the shrunk suite", .error, error.message))
            return finish(state, start: start, extra: shrunk.played.result.map { [$0] } ?? [])
        }
        state.suitePath = path
        state.steps.append(
            step(
                state.sequences, "sequence \(state.sequences): " + Self.summary(sequence, writer), .fail,
                "diverges from the reference; shrunk to \(shrunk.sequence.steps.count) operations in \(path)"))
        var extra = shrunk.played.result.map { [$0] } ?? []
        let loaded = LoadedSuites(names: [path], profile: configuration.profile) {
            FileManager.default.contents(atPath: $0)
        }
        if let suite = loaded.suites.first {
            extra = [
                await Runner(transport: target, retention: .failures).run(
                    player.targetPlan(suite))
            ]
        }
        return finish(state, start: start, extra: extra)
    }

    /// Writes `text` as `<id>.yaml` under `--out` (made when missing), or under a temporary directory.
    private func write(_ text: String, id: String) -> Result<String, ExploreError> {
        let directory =
            configuration.outDirectory ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("conform-explore")
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = (directory as NSString).appendingPathComponent("\(id).yaml")
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            return .success(path)
        } catch {
            return .failure(
                ExploreError(
                    message: "cannot write the shrunk suite under \(directory): \(error.localizedDescription); "
                        + "give --out a directory you can write"))
        }
    }

    /// Suites kept under `--out` from earlier explorations, replayed before anything new: one that still
    /// diverges is the result.
    private func replaySaved(start: ContinuousClock.Instant, state: inout Progress) async -> ExploreReport? {
        guard let directory = configuration.outDirectory else { return nil }
        let files = LoadedSuites.suiteFiles(inDirectory: directory).map {
            (directory as NSString).appendingPathComponent($0)
        }
        guard !files.isEmpty else { return nil }
        let loaded = LoadedSuites(names: files, profile: configuration.profile) {
            FileManager.default.contents(atPath: $0)
        }
        if !loaded.problems.isEmpty {
            state.steps.append(
                step(
                    1, "the suites kept in \(directory)", .error,
                    "\(loaded.renderedProblems().rendered)fix or remove them, or give --out another directory"))
            return finish(state, start: start, extra: [])
        }
        for suite in loaded.suites {
            let result = await Runner(transport: target, retention: .failures).run(
                player.targetPlan(suite))
            state.sequences += 1
            state.operations += suite.stepCount
            let name = "replayed \(suite.file)"
            switch SequencePlayer.outcome(of: result) {
            case .diverged:
                state.suitePath = suite.file
                state.lines.append("A suite kept from an earlier exploration still diverges: \(suite.file)")
                state.steps.append(step(state.sequences, name, .fail, "still diverges from the reference"))
                return finish(state, start: start, extra: [result])
            case .couldNotRun(let index, let reason):
                state.steps.append(step(state.sequences, name, .error, "step \(index + 1): \(reason)"))
                return finish(state, start: start, extra: [Self.marked(result, index, reason)])
            case .assumptionNotMet(_, let decision):
                state.steps.append(
                    step(state.sequences, name, .assumptionNotMet, "differs where \(decision) only assumes"))
            case .same:
                state.steps.append(step(state.sequences, name, .pass, nil))
            }
        }
        state.lines.append(
            "Replayed \(loaded.suites.count) suite(s) kept in \(directory) first: none diverges any more.")
        return nil
    }
}
