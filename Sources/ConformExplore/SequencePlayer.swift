import ConformCore
import ConformReference
import ConformReport
import ConformRunner
import Foundation
import Synchronization

/// How one sequence went on the target, judged against the reference.
enum SequenceOutcome: Sendable, Hashable {
    /// Every observation matched.
    case same
    /// A step differed where a decision only assumes (`decision`); what follows cannot be judged.
    case assumptionNotMet(step: Int, decision: String)
    /// A step differed where the protocol or a decision makes it a MUST.
    case diverged(step: Int)
    /// The target could not answer a step (5xx, timeout, transport failure), or the explorer could not play it.
    case couldNotRun(step: Int, reason: String)

    var diverged: Bool { if case .diverged = self { true } else { false } }
}

/// One sequence played: its outcome, the judging suite, the target's run, and the states each step met.
struct PlayedSequence: Sendable {
    var outcome: SequenceOutcome
    /// The suite that judged it (the reference's observations as expectations).
    var suiteText: String
    /// The target's run of that suite.
    var result: RunResult?
    /// For coverage: each step's operation and the abstract state it met on the reference.
    var states: [CoverageCell]
}

/// Plays a sequence on a fresh reference, writes what the reference showed as a suite, and runs that suite on the
/// target with the runner: lock-step in effect, since the reference is deterministic and sequences never depend on
/// the target's answers. Every play draws fresh persons, tags and texts, so a live target needs no reset.
struct SequencePlayer: Sendable {
    var configuration: ExploreConfiguration
    var target: any Transport

    var writer: SuiteWriter {
        SuiteWriter(
            exploration: configuration.profile.exploration, application: configuration.application,
            applicationMode: configuration.applicationMode)
    }

    /// Fresh values for every person, tag and text the sequence names.
    func freshIdentities(for sequence: ExploreSequence) -> [String: String] {
        let (persons, texts) = writer.variables(of: sequence)
        let run = String(UUID().uuidString.lowercased().prefix(13))
        var values: [String: String] = [:]
        for p in 1...persons {
            values["p\(p)"] = "explore-p\(p)-\(run)"
            values["g\(p)"] = "explore-tag-p\(p)-\(run)"
        }
        for t in 0..<texts { values["t\(t + 1)"] = "explore push \(t + 1) \(run)" }
        return values
    }

    func play(_ sequence: ExploreSequence, id: String = "explore") async -> PlayedSequence {
        // Played on in-process implementations, a sequence may never suspend: between sequences the other tasks of
        // the process get their turn, so an exploration (or its shrinking) never holds a thread of the shared pool
        // for its whole length.
        await Task.yield()
        let operations = configuration.profile.exploration.operations
        let identities = freshIdentities(for: sequence)
        let window = configuration.windowText
        // 1. The reference, step by step, with the state before each step.
        let recorder = ReferenceRecorder(reference: configuration.makeReference())
        let bare = writer.render(
            sequence, id: id, title: "", description: "", window: window, interval: configuration.intervalText)
        let playSuite: Suite
        switch load(bare, name: "\(id).yaml") {
        case .success(let suite): playSuite = suite
        case .failure(let error): return Self.unloadable(bare, error, states: [])
        }
        var referencePlan = plan(playSuite, identities: identities, defaults: configuration.profile.referenceBaseURLs)
        referencePlan.targetDescription = "the reference"
        _ = await Runner(transport: recorder, retention: .failures).run(referencePlan)
        let records = recorder.records
        guard records.count == sequence.steps.count else {
            return PlayedSequence(
                outcome: .couldNotRun(
                    step: records.count, reason: "the reference played \(records.count) of the sequence's steps"),
                suiteText: bare, result: nil, states: [])
        }
        // 2. Each side's own ids, by logical name; the reference's answers as expectations.
        var names = identities
        var expectations: [StepExpectation] = []
        var textsSent: [String] = []
        var states: [CoverageCell] = []
        var pushes: [String: PushFacts] = [:]
        var everPrimary: Set<String> = []
        var text = 0
        for (index, (step, record)) in zip(sequence.steps, records).enumerated() {
            let op = operations[step.operation]
            states.append(CoverageCell.of(op, step: step, names: names, before: record.before))
            for person in record.before.persons {
                everPrimary.formUnion(person.installations.filter(\.isPrimary).map(\.pushRegId))
            }
            if op.slots.contains(.text) {
                text += 1
                textsSent.append("t\(text)")
                let after = index + 1 < records.count ? records[index + 1].before : nil
                var facts = PushFacts(op, step, names: names, before: record.before, after: after)
                facts.primaryBefore = everPrimary
                pushes["t\(text)"] = facts
            }
            var builder = ExpectationBuilder(
                exploration: configuration.profile.exploration, names: names, textsSent: textsSent)
            builder.pushes = pushes
            builder.device = names["d\(step.device + 1)"]
            var judged = op
            // A primary-only push to a person without a primary device: its acceptance is only assumed, too.
            if let facts = op.slots.contains(.text) ? pushes["t\(text)"] : nil, facts.primaryOnly,
                !facts.personHadPrimary, let decision = configuration.profile.exploration.pushAssumptions.noPrimary
            {
                judged.statusAssumedBy = decision
            }
            expectations.append(builder.expectation(for: judged, response: record.response))
            if let path = op.registers, let body = try? JSONValue.parse(record.response.body),
                let id = builder.value(at: path, in: body)?.stringValue
            {
                names["d\(step.device + 1)"] = id
            }
        }
        let judging = writer.render(
            sequence, id: id, title: "Explored sequence", description: "", window: window,
            interval: configuration.intervalText, expectations: expectations)
        let suite: Suite
        switch load(judging, name: "\(id).yaml") {
        case .success(let loaded): suite = loaded
        case .failure(let error): return Self.unloadable(judging, error, states: states)
        }
        // 3. The target, judged by the runner.
        let result = await Runner(transport: target, retention: .failures).run(
            targetPlan(suite, identities: freshIdentities(for: sequence)))
        return PlayedSequence(outcome: Self.outcome(of: result), suiteText: judging, result: result, states: states)
    }

    /// The first step that did not pass decides: a 5xx or no answer could not run; an assumption ends the
    /// sequence (what follows it cannot be judged against the reference); a failure is a divergence.
    static func outcome(of result: RunResult) -> SequenceOutcome {
        for (index, step) in result.steps.enumerated() where step.verdict != .pass {
            switch step.verdict {
            case .assumptionNotMet:
                let decision = step.failures.lazy.compactMap(\.decision).first ?? "a decision"
                return .assumptionNotMet(step: index, decision: decision)
            case .fail:
                guard let response = step.response else {
                    return .couldNotRun(step: index, reason: step.error ?? "no answer")
                }
                if response.status.rawValue >= 500 {
                    return .couldNotRun(
                        step: index,
                        reason: "the target answered \(response.status.rawValue): it could not take the step")
                }
                return .diverged(step: index)
            default:
                return .couldNotRun(step: index, reason: step.error ?? "the step could not run")
            }
        }
        return .same
    }

    /// A sequence whose suite, as the explorer wrote it, does not load: it could not run from its first step.
    static func unloadable(_ text: String, _ error: ExploreError, states: [CoverageCell]) -> PlayedSequence {
        PlayedSequence(
            outcome: .couldNotRun(step: 0, reason: "the explorer wrote a suite that does not load: \(error)"),
            suiteText: text, result: nil, states: states)
    }

    func load(_ text: String, name: String) -> Result<Suite, ExploreError> {
        let loaded = LoadedSuites(files: [(name, Data(text.utf8))], profile: configuration.profile)
        guard loaded.problems.isEmpty, let suite = loaded.suites.first else {
            return .failure(ExploreError(message: loaded.renderedProblems().rendered))
        }
        return .success(suite)
    }

    /// The plan of a suite on the target: the variables given for it (`--var`) under the sequence's identities.
    func targetPlan(_ suite: Suite, identities: [String: String] = [:]) -> RunPlan {
        plan(
            suite, identities: configuration.variables.merging(identities) { _, identity in identity },
            defaults: configuration.targetDefaults)
    }

    func plan(_ suite: Suite, identities: [String: String], defaults: [String: String]) -> RunPlan {
        var plan = RunPlan(
            suites: [suite], overrides: identities, targetDefaults: defaults,
            exchangeTimeout: configuration.exchangeTimeout, targetDescription: configuration.targetDescription,
            functions: configuration.profile.functions)
        plan.failFast = true
        return plan
    }
}

/// The embedded reference as a transport that keeps each answer with the state the request met.
final class ReferenceRecorder: Transport, Sendable {
    struct Record: Sendable {
        var before: ReferenceSnapshot
        var response: HTTPResponse
    }
    let reference: ReferenceImplementation
    private let log = Mutex<[Record]>([])

    init(reference: ReferenceImplementation) { self.reference = reference }

    var records: [Record] { log.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let before = reference.snapshot()
        let response = try await reference.send(request)
        log.withLock { $0.append(Record(before: before, response: response)) }
        return response
    }
}

/// A problem of the explorer itself (a suite it wrote that does not load, a directory it cannot write).
public struct ExploreError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
