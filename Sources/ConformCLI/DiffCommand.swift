import ConformCore
import ConformCurl
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformTraffic
import ConformTransports
import Foundation
import Synchronization

/// `conform diff --target A --target B SUITES_OR_RECORDINGS`: the same exchanges against two implementations, step by step.
enum DiffCommand {
    static func main(_ args: [String], io: CommandIO) async throws(UsageError) -> Int32 {
        let parsed = try Arguments(args, command: .diff)
        if parsed.has("--help") {
            io.out.write(CommandSpec.diff.helpText)
            return 0
        }
        let targets = parsed.values("--target")
        guard targets.count == 2 else {
            throw UsageError(message: "diff takes exactly two --target options", subcommand: "diff")
        }
        let a = try Target(parsing: targets[0], faults: parsed.values("--fault-a"), subcommand: "diff")
        let b = try Target(parsing: targets[1], faults: parsed.values("--fault-b"), subcommand: "diff")
        guard let noise = TrafficSupport.noise(parsed, io: io) else { return ConformCommand.ExitCode.cannotRun }
        // Without inputs, ./suites and nothing else: a diff compares what the user has, never the installed suites.
        let inputs = parsed.positionals.isEmpty ? ["suites"] : parsed.positionals
        let reports = try ReportRequest.all(parsed, subcommand: "diff")
        let tls = try ClientTLSOptions.parse(parsed, subcommand: "diff", io: io)
        let collector = reports.isEmpty ? nil : ResultCollector()
        let started = ContinuousClock.now
        var differing = 0
        let unreadable = Atomic(0)
        // Exchanges of recordings compared: a diff of an empty recording shows nothing about either side.
        var compared = 0
        var recordings = 0
        do {
            for input in inputs {
                // A trace of any format (an empty `.jsonl` is a recording with nothing in it), else suites.
                if input.hasSuffix(".jsonl") || TraceFile.holdsTrace(io.resolve(input)) {
                    recordings += 1
                    var options = TrafficSupport.replayOptions(
                        a,
                        substitutions: try parsed.pairs("--map"), sequential: true, timeout: .seconds(10))
                    // Differential shares one set of options; each side gets its own origin through its transport.
                    options.origins = [:]
                    let differential = Differential(
                        a: try rebased(a, timeout: .seconds(10), tls: tls),
                        b: try rebased(b, timeout: .seconds(10), tls: tls),
                        noise: noise,
                        options: options)
                    let trace = try TrafficSupport.trace(input, io: io).exchanges(
                        onWarning: TrafficSupport.warnings(io))
                    let report = try await differential.run(trace) { step in
                        collector?.add(
                            ReplayResults.step(step, trace: input),
                            to: ReplayResults.suite(flow: step.flow, trace: input, title: "Diff of \(input)"))
                    }
                    unreadable.add(trace.tally.unreadable, ordering: .relaxed)
                    for step in report.steps { io.out.write("\(input): \(step)\n") }
                    compared += report.total
                    io.out.write(
                        "\(input): \(report.total) exchanges, \(report.same) the same, \(report.differing) different\n")
                    differing += report.differing
                } else {
                    differing += try await diffSuites(
                        input, a: a, b: b, noise: noise, parsed: parsed, io: io, collector: collector)
                }
            }
        } catch let error as UsageError {
            throw error
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
        if let collector {
            let result = collector.result(
                target: "A \(a.description), B \(b.description)", duration: ReportRequest.seconds(since: started),
                kind: .comparison)
            guard ReportRequest.write(reports, for: result, io: io) else { return ConformCommand.ExitCode.cannotRun }
        }
        if recordings == inputs.count && compared == 0 && differing == 0 {
            io.out.write("Result: cannot judge: the recordings hold no exchange\n")
            return ConformCommand.ExitCode.cannotRun
        }
        let skipped = unreadable.load(ordering: .relaxed)
        if skipped > 0 && differing == 0 {
            // What the skipped lines held was sent to neither side: the two cannot be called the same.
            io.out.write(
                "Result: cannot judge: \(skipped) unreadable record\(skipped == 1 ? "" : "s") skipped (see the warnings)\n"
            )
            return ConformCommand.ExitCode.cannotRun
        }
        io.out.write(
            differing == 0
                ? "Result: the two implementations behave the same\n"
                : "Result: \(differing) step\(differing == 1 ? " differs" : "s differ")\n")
        return differing == 0 ? ConformCommand.ExitCode.conforms : ConformCommand.ExitCode.mismatch
    }

    /// The target's transport; for an http(s) target, recorded URLs are sent to its origin.
    static func rebased(_ target: Target, timeout: Duration, tls: ClientTLS = ClientTLS()) throws -> any Transport {
        let transport = try target.makeTransport(timeout: timeout, insecure: tls.insecure, tls: tls)
        if case .http(let url) = target { return RebasedTransport(base: url, inner: transport) }
        return transport
    }

    /// Runs suites against both targets and compares each step's verdict and response.
    static func diffSuites(
        _ input: String, a: Target, b: Target, noise: NoiseRules, parsed: Arguments, io: CommandIO,
        collector: ResultCollector?
    ) async throws -> Int {
        let files = try SuiteFiles.expand([input], io: io)
        let loaded = SuiteFiles.load(files, io: io)
        if let notRun = loaded.notRun {
            io.err.write(loaded.renderedProblems())
            throw CLIFailure(notRun)
        }
        let overrides = try parsed.pairs("--var")
        func run(_ target: Target) async throws -> RunResult {
            let plan = RunPlan(
                suites: loaded.suites, overrides: overrides,
                targetDefaults: target.variableDefaults(ConformCommand.profile),
                targetDescription: target.description, functions: ConformCommand.profile.functions)
            let tls = try ClientTLSOptions.parse(parsed, subcommand: "diff", io: io)
            return await Runner(transport: try target.makeTransport(timeout: .seconds(10), tls: tls)).run(plan)
        }
        let ra = try await run(a)
        let rb = try await run(b)
        var differing = 0
        // Each run generates its own values (uuid(), minted ids): B's are translated into A's before comparing.
        // Steps of concurrent flows are listed flow by flow, so everything is learned before anything is compared.
        var bToA = IdentifierMap()
        for (sa, sb) in zip(ra.steps, rb.steps) {
            if let x = sa.request, let y = sb.request { learnTokens(a: x, b: y, into: &bToA) }
            if let x = sa.response.map(ContentDecoding.decoded), let y = sb.response.map(ContentDecoding.decoded),
                let jx = JSONValue.parsedBody(x.body), let jy = JSONValue.parsedBody(y.body)
            {
                bToA.learn(recorded: jy, live: jx, keys: IdentifierMap.defaultMintedKeys)
            }
        }
        for (suite, (sa, sb)) in zip(ra.suites, rb.suites).flatMap({ p in
            zip(p.0.steps, p.1.steps).map { (p.0.suite, $0) }
        }) {
            let mismatches = compare(sa, sb, bToA: bToA, noise: noise)
            var step = sa
            step.verdict = mismatches.isEmpty ? .pass : .fail
            step.failures = mismatches.isEmpty ? [] : [CheckFailure(severity: .must, mismatches: mismatches)]
            step.error = nil
            if mismatches.isEmpty { (step.request, step.response) = (nil, nil) }
            collector?.add(step, to: suite)
            guard !mismatches.isEmpty else { continue }
            differing += 1
            let notes = mismatches.map { m in
                switch m.path {
                case "verdict", "response": "\(m.path == "verdict" ? "verdict: " : "")\(m.expected), \(m.actual)"
                default: "  \(m)"
                }
            }
            io.out.write(
                "\(sa.suiteID) › \(sa.flow) › \(sa.index + 1). \(sa.name) (\(sa.file):\(sa.mark))\n"
                    + notes.map { "    \($0)" }.joined(separator: "\n") + "\n")
        }
        return differing
    }

    /// Where B's step differs from A's: the verdict, whether a response came, and the responses (B's generated
    /// values read as A's), with A as what was expected.
    static func compare(_ sa: StepResult, _ sb: StepResult, bToA: IdentifierMap, noise: NoiseRules) -> [Mismatch] {
        var out: [Mismatch] = []
        if sa.verdict != sb.verdict {
            out.append(
                Mismatch(path: "verdict", expected: "A \(sa.verdict.rawValue)", actual: "B \(sb.verdict.rawValue)"))
        }
        if let x = sa.response.map(ContentDecoding.decoded), let y = sb.response.map(ContentDecoding.decoded) {
            out += ResponseDiff.compare(expected: x, actual: bToA.apply(y), noise: noise)
        } else if (sa.response == nil) != (sb.response == nil) {
            out.append(
                Mismatch(
                    path: "response", expected: "A \(sa.response == nil ? "got no response" : "got a response")",
                    actual: "B \(sb.response == nil ? "got no response" : "got a response")"))
        }
        return out
    }

    /// Maps each token of B's request to A's where the two requests differ only in generated values.
    static func learnTokens(a: HTTPRequest, b: HTTPRequest, into map: inout IdentifierMap) {
        func text(_ r: HTTPRequest) -> String {
            ([r.method.rawValue, URLParts(r.url).target] + r.headerFields.fields.map { "\($0.name): \($0.value)" }
                + [String(decoding: r.body, as: UTF8.self)]).joined(separator: "\n")
        }
        let ta = tokens(text(a))
        let tb = tokens(text(b))
        guard ta.count == tb.count else { return }
        for (x, y) in zip(ta, tb) where x != y && map.mapping[String(y)] == nil { map.set(String(y), String(x)) }
    }

    /// Maximal runs of `[A-Za-z0-9-]`, the units ids are replaced in.
    static func tokens(_ text: String) -> [Substring] {
        text.split(whereSeparator: { c in !(c.isASCII && (c.isLetter || c.isNumber || c == "-")) })
    }
}
