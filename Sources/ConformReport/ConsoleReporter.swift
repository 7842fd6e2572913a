import ConformCore
import ConformDiagnostics
import Foundation

/// Human-readable report: each suite as it finishes, its failing checks with diffs, and the summary last.
///
/// Written as ``TerminalText``: titles, names, messages, values and URLs are shown with their control characters
/// escaped, and only the reporter's own colours reach the terminal as control sequences.
public struct ConsoleReporter: RunReporter {
    public var sink: any TextSink
    public var color: Bool
    /// Show every step, not only those that did not pass.
    public var verbose: Bool
    /// Hides the credentials the run was given in the URLs, errors and diffs shown (the public values a trace or a
    /// suite carries stay readable: a check names the application it means).
    public var masker: SecretMasker

    public init(sink: any TextSink, color: Bool = false, verbose: Bool = false, masker: SecretMasker = SecretMasker()) {
        self.sink = sink
        self.color = color
        self.verbose = verbose
        self.masker = masker
    }

    public func handle(_ event: RunEvent) {
        switch event {
        case .runStarted(let plan):
            sink.write(
                paint("Conform", .bold)
                    + TerminalText(
                        ": \(count(plan.suiteCount, "suite")), \(count(plan.stepCount, "step")) against \(plan.target)\n\n"
                    ))
        case .stepFinished(let step) where streamsSteps:
            if shows(step) { sink.write(render(step, group: step.suiteID)) }
        case .suiteFinished(let result) where !streamsSteps: sink.write(render(result))
        case .runFinished(let result): sink.write(summary(result))
        default: break
        }
    }

    /// Whether steps are shown as they finish, each with its group, rather than suite by suite: for the commands
    /// whose steps come out of order (replay, diff, check, scan).
    public var streamsSteps = false

    func render(_ result: SuiteResult) -> TerminalText {
        let s = result.group
        var out: TerminalText = "\(mark(result.verdict)) \(paint(s.id, .bold))  \(s.title)"
        if !s.step.isEmpty { out += paint("  [\(s.step)]", .dim) }
        out += "\n"
        for step in result.steps where shows(step) { out += render(step, group: nil) }
        return out
    }

    /// A step that passed is shown when verbose, or when it carries a note (a source that may leave passed steps
    /// unmade adds no note to them).
    public var showsPassedSteps: Bool { verbose }

    /// Whether a step is shown: every step when verbose, else those that did not pass or carry a note.
    func shows(_ step: StepResult) -> Bool {
        verbose || step.verdict != .pass || step.errors.contains { $0.kind == .note }
    }

    /// One step, under its suite's line, or on its own line with its group's name first (`group`).
    func render(_ step: StepResult, group: String?) -> TerminalText {
        let indent = group == nil ? "    " : ""
        var out: TerminalText = "\(indent)\(mark(step.verdict)) "
        if let group { out += paint(group, .bold) + " › " }
        // A suite step is named by its flow and place; a trace record, rule or finding by its own name.
        out += TerminalText(
            [.replayDifference, .flowRule, .secretFinding].contains(step.check)
                ? step.name : "\(step.flow) › \(step.index + 1). \(step.name)")
        if step.verdict == .assumptionNotMet {
            let ids = Set(step.failures.compactMap(\.decision)).sorted().joined(separator: ", ")
            out += paint("  assumption not met" + (ids.isEmpty ? "" : " (\(ids))"), .yellow)
        }
        if step.retries > 0 { out += paint("  (\(Self.retried(step.retries)))", .dim) }
        out += "\n"
        let noted = step.errors.contains { $0.kind == .note }
        let whereJudged = verbose && step.errors.contains { $0.kind == .judgedAt }
        if step.verdict == .pass && !noted && !whereJudged
            || step.verdict == .skipped && !verbose && step.check == .suiteExpectation
        {
            return out
        }
        out += paint("\(indent)    --> \(step.location)", .dim)
        if !step.spec.isEmpty { out += paint("  spec: \(step.spec.summary)", .dim) }
        out += "\n"
        if let request = step.request, step.verdict != .skipped || step.check != .suiteExpectation {
            out += paint("\(indent)    \(request.method) \(masker.text(request.url))", .dim)
            if let response = step.response { out += paint(" -> \(response.status.code)", .dim) }
            out += "\n"
        }
        if let error = step.error.map(masker.text) {
            out +=
                "\(indent)    " + paint(error, step.verdict == .skipped || step.verdict == .pass ? .dim : .red) + "\n"
        }
        for failure in step.failures {
            let label =
                !step.check.hasSeverities
                ? Self.findingLabel(step.check)
                : failure.severity == .assumed ? "assumed \(failure.decision ?? "")" : failure.severity.rawValue
            for m in failure.mismatches {
                out +=
                    "\(indent)    \(paint(label, failure.severity == .assumed ? .yellow : .red)) \(masker.text(m.path))\n"
                out += "\(indent)        expected: \(paint(masker.text(m.expected), .green))\n"
                out += "\(indent)        actual:   \(paint(masker.text(m.actual), .red))\n"
                if let note = m.note { out += "\(indent)        note:     \(masker.text(note))\n" }
            }
            for f in failure.findings {
                out += "\(indent)    \(paint(label, .red)) \(masker.text(f.heading))\n"
                out += "\(indent)        requires: \(paint(masker.text(f.requirement), .green))\n"
                out += "\(indent)        found:    \(paint(masker.text(f.found), .red))\n"
                out += "\(indent)        help:     \(masker.text(f.help))\n"
            }
        }
        return out
    }

    func summary(_ result: RunResult) -> TerminalText {
        let c = result.counts
        var parts: [String] = [
            "\(c[.pass, default: 0]) passed",
            "\(c[.fail, default: 0]) failed",
            "\(c[.assumptionNotMet, default: 0]) assumption not met",
            "\(c[.skipped, default: 0]) skipped",
            "\(c[.error, default: 0]) could not run",
        ]
        if result.command != .run && result.command != .explore {
            // Outside suite runs and explorations no step has an assumption, and a step without a verdict could not be judged.
            parts = [
                "\(c[.pass, default: 0]) passed", "\(c[.fail, default: 0]) failed",
                "\(c[.skipped, default: 0] + c[.error, default: 0]) could not be judged",
            ]
            if result.command == .check { parts.insert("\(c[.notExercised, default: 0]) not exercised", at: 2) }
        }
        let retries = result.retries
        if retries.count > 0 {
            parts.append(
                "\(retries.count) \(retries.count == 1 ? "retry" : "retries") (\(count(retries.steps, "step")))")
        }
        let time = String(format: "%.2f", result.duration)
        var out: TerminalText = ""
        if result.repetitions > 1 {
            out += "\nRepeated \(result.repetitions) times; each step shows its worst verdict. "
            out += result.flaky.isEmpty ? "No step is flaky.\n" : "Flaky (the verdict changed):\n"
            for f in result.flaky {
                out += "    " + paint("~ \(f.title)", .yellow) + ": \(f.tally)\n"
                out += paint("        --> \(f.location)", .dim) + "\n"
            }
        }
        if !result.contactedOrigins.isEmpty {
            out.append("\nRequests went to: " + result.contactedOrigins.joined(separator: ", ") + "\n")
        }
        out += runWideCauses(result)
        if !result.notices.isEmpty { out += "\n" }
        for notice in result.notices { out += paint(masker.text(notice.line), .yellow) + "\n" }
        out += certification(result)
        let broken = result.violatedRules
        if !broken.isEmpty {
            out.append(
                "\nRules broken: " + broken.map { "\($0.rule) × \($0.violations)" }.joined(separator: ", ") + "\n")
        }
        let traffic: String = result.checkedTraffic.map { $0.summary + "; " } ?? ""
        out.append(
            "\nSummary: \(traffic)\(result.groupNoun.counted(result.suites.count)), "
                + "\(result.command.stepNoun.counted(result.stepCount)): "
                + parts.joined(separator: ", ") + " in \(time) s\n")
        let style: Style = result.status == .conforms ? .green : .red
        out += paint("Result: \(result.outcome)", style, .bold) + "\n"
        return out
    }

    /// The causes that concern the run rather than a step (the implementation refused the run's default
    /// credentials), each once with how many steps it made unable to run: the steps above were shown as they came,
    /// before the run could tell.
    func runWideCauses(_ result: RunResult) -> TerminalText {
        var seen: [String: Int] = [:]
        var order: [String] = []
        for step in result.eachStep {
            for error in step.errors where error.kind == .credentialsRefused {
                if seen[error.message] == nil { order.append(error.message) }
                seen[error.message, default: 0] += 1
            }
        }
        var out: TerminalText = ""
        for message in order {
            let steps = Noun("step").counted(seen[message] ?? 0)
            out += "\n" + paint("Could not run:", .red, .bold) + TerminalText(" \(message) (\(steps))\n")
        }
        return out
    }

    /// Whether the run is certifiable or partial and why, and the kit, suites and product it comes from.
    func certification(_ result: RunResult) -> TerminalText {
        var out: TerminalText = ""
        if let provenance = result.provenance {
            var line = "\nConform \(provenance.kitVersion) (commit \(provenance.kitCommit.prefix(12))), suites SHA-256 "
            line += String(provenance.suitesDigest.prefix(12))
            if let product = provenance.product { line += ", product \(product.description)" }
            out.append(line + "\n")
        }
        switch result.certifiability {
        case .certifiable?:
            out += "Certification: " + paint("certifiable", .green) + " (the whole bundled plan, nothing skipped)\n"
        case .partial(let reasons)?:
            out +=
                "Certification: " + paint("partial", .yellow)
                + TerminalText(" (" + reasons.joined(separator: "; ") + ")\n")
        case nil: break
        }
        return out
    }

    /// `retried N time(s)`, as a step says what `--retry` did for it.
    static func retried(_ n: Int) -> String { "retried \(n) time\(n == 1 ? "" : "s")" }

    func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    func mark(_ verdict: Verdict) -> TerminalText {
        switch verdict {
        case .pass: paint("✔", .green)
        case .assumptionNotMet: paint("~", .yellow)
        case .skipped: paint("-", .dim)
        case .notExercised: paint("○", .yellow)
        case .fail: paint("✘", .red)
        case .error: paint("!", .red, .bold)
        }
    }

    enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33"
    }

    func paint(_ text: String, _ styles: Style...) -> TerminalText {
        TerminalText.styled(TerminalText(text), styles.map(\.rawValue).joined(separator: ";"), enabled: color)
    }
}

extension ConsoleReporter {
    /// What a failure of a check without severities is called in front of its path.
    static func findingLabel(_ check: StepResult.Check) -> String {
        switch check {
        case .suiteExpectation: "must"
        case .replayDifference: "differs"
        case .flowRule: "violation"
        case .secretFinding: "secret"
        case .suiteDifference: "differs"
        case .clientRequest: "request"
        }
    }
}
