import ConformCore
import ConformCurl
import ConformDiagnostics
import ConformReplay
import ConformReport
import ConformRunner
import ConformTraffic
import ConformTransports
import Foundation

/// `conform diff --target A --target B SUITES_OR_RECORDINGS`: the same exchanges against two implementations, step by step.
enum DiffCommand {
    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        let targets = parsed.values("--target")
        guard targets.count == 2 else {
            throw UsageError(message: "diff takes exactly two --target options", subcommand: "diff")
        }
        let a = try Target(parsing: targets[0], faults: parsed.values("--fault-a"), subcommand: "diff")
        let b = try Target(parsing: targets[1], faults: parsed.values("--fault-b"), subcommand: "diff")
        guard let given = TrafficSupport.noise(parsed, io: io) else { return ConformCommand.ExitCode.cannotRun }
        // Two correct implementations differ on what the protocol documents as volatile: ignored unless asked.
        let noise = TrafficSupport.withDocumentedNoise(given, parsed)
        // Without inputs, ./suites and nothing else: a diff compares what the user has, never the installed suites.
        let inputs = parsed.positionals.isEmpty ? ["suites"] : parsed.positionals
        let session = Session(
            console: HARCommands.console(io: io), reports: try ReportRequest.all(parsed, subcommand: "diff", io: io),
            credentialHeaders: ConformCommand.profile.credentialHeaderNames)
        let tls = try ClientTLSOptions.parse(parsed, subcommand: "diff", io: io)
        let started = ContinuousClock.now
        let substitutions = try parsed.substitutions()
        let overrides = try parsed.variables()
        // Persons of this run's own on both sides, as `replay --fresh-identities` gives them.
        let fresh = try ReplayCommand.freshIdentities(parsed, subcommand: "diff")
        let retry = try parsed.retryPolicy()
        let timeout = try parsed.duration("--timeout") ?? .seconds(10)
        do {
            let outcome = try await session.run { events in
                let collector = ResultCollector(events: events)
                for input in inputs {
                    // A trace of any format (an empty `.jsonl` is a recording with nothing in it), else suites.
                    if input.hasSuffix(".jsonl") || TraceFile.holdsTrace(io.resolve(input)) {
                        try await diffRecording(
                            input, a: a, b: b, noise: noise, substitutions: substitutions, fresh: fresh, tls: tls,
                            retry: retry, timeout: timeout, io: io
                        ) { step, group in collector.add(step, to: group) }
                    } else {
                        let steps = try await diffSuites(
                            input, a: a, b: b, noise: noise, overrides: overrides, tls: tls, retry: retry,
                            timeout: timeout, io: io)
                        for (step, group) in steps { collector.add(step, to: group) }
                    }
                }
                return collector.result(
                    .diff, target: "A \(a.description), B \(b.description)",
                    duration: ReportRequest.seconds(since: started))
            }
            return io.status(of: outcome)
        } catch let error as UsageError {
            throw error
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
    }

    /// Sends the exchanges of the recording `input` to both targets, handing each compared exchange to `step`; the
    /// records that could not be read come last, as one step that cannot be judged.
    static func diffRecording(
        _ input: String, a: Target, b: Target, noise: NoiseRules, substitutions: [String: String],
        fresh: FreshIdentities? = nil, tls: ClientTLS, retry: RetryPolicy? = nil, timeout: Duration = .seconds(10),
        io: CommandIO,
        step: @escaping @Sendable (StepResult, ResultGroup) -> Void
    ) async throws {
        var options = TrafficSupport.replayOptions(
            a, substitutions: substitutions, sequential: true, timeout: timeout)
        options.freshIdentities = fresh
        // Differential shares one set of options; each side gets its own origin through its transport.
        options.origins = [:]
        let differential = Differential(
            a: try rebased(a, timeout: timeout, tls: tls, retry: retry),
            b: try rebased(b, timeout: timeout, tls: tls, retry: retry),
            noise: noise,
            options: options)
        let trace = try TrafficSupport.trace(input, io: io).exchanges(onWarning: TrafficSupport.warnings(io))
        // The line for this input counts its steps by verdict, as the result will.
        io.out.write(try await differential.compare(trace, trace: input, onStep: step) + "\n")
        if let fresh { io.out.write("Fresh identities: prefix \(fresh.prefix)\n") }
        // What the skipped lines held was sent to neither side: the two cannot be called the same.
        ReplayResults.addUnreadable(trace.tally.unreadable, trace: input, to: step)
    }

    /// The target's transport; for an http(s) target, recorded URLs are sent to its origin.
    static func rebased(
        _ target: Target, timeout: Duration, tls: ClientTLS = ClientTLS(), retry: RetryPolicy? = nil
    ) throws -> any Transport {
        let transport = try target.makeTransport(timeout: timeout, insecure: tls.insecure, tls: tls).retrying(retry)
        if case .http(let url) = target { return RebasedTransport(base: url, inner: transport) }
        return transport
    }

    /// Runs suites against both targets, each as `conform run` would, and compares them (``SuiteDifferential``).
    static func diffSuites(
        _ input: String, a: Target, b: Target, noise: NoiseRules, overrides: [String: String], tls: ClientTLS,
        retry: RetryPolicy? = nil, timeout: Duration = .seconds(10), io: CommandIO
    ) async throws -> [(StepResult, ResultGroup)] {
        let files = try SuiteFiles.expand([input], io: io)
        let loaded = SuiteFiles.load(files, io: io)
        if let notRun = loaded.notRun {
            io.err.write(loaded.renderedProblems())
            throw CLIFailure(notRun)
        }
        // Each side's run is a suite run as `conform run` assembles it: its base URLs, `CONFORM_VAR_*`, `--var`.
        func run(_ target: Target) async throws -> RunResult {
            let run = SuiteRun(
                suites: loaded.suites, overrides: overrides,
                environment: RunPlan.variables(fromEnvironment: io.environment),
                targetDefaults: target.variableDefaults(ConformCommand.profile), exchangeTimeout: timeout,
                targetDescription: target.description, profile: ConformCommand.profile)
            return await Runner(
                transport: try target.makeTransport(timeout: timeout, tls: tls).retrying(retry)
            ).run(run.plan)
        }
        let ra = try await run(a)
        let rb = try await run(b)
        return SuiteDifferential(noise: noise, minted: ConformCommand.profile.replay.minted).compare(ra, rb)
    }
}
